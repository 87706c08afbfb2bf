// The terminal path's safety nets (src/host/shell/terminal-runner.ts). On a loaded machine a line typed
// while the shell still draws its prompt can escape VS Code's command tracking: the command runs,
// but VS Code reports another execution for it, or none. That happens only under load, so here the
// runner's seams drop, delay or re-pair what VS Code reports, in the real terminal with real
// processes, and each test checks what the card and the model get and which path ran the command
// (its `$PPID` is the terminal's shell on the terminal path, this extension host on the child path).
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import { BackgroundCommands } from "../../src/core/shell/background";
import { descendantsOf } from "../../src/core/shell/process-tree";
import { runCommandOnce } from "../../src/core/shell/run";
import type { PiChatTestApi } from "../../src/host/extension";
import { carriesLine } from "../../src/host/shell/launchers";
import type { ShellExecutionEvents } from "../../src/host/shell/terminal-runner";
import type { ToolItem } from "../../src/shared/chat-items";
import type { OpenAIServer } from "../support/openai-server";
import { escapees, ESCAPING_RUN, leftOf } from "../support/escaping-run";
import { startChatView, toolCard, waitFor } from "./helpers";

type StartEvent = vscode.TerminalShellExecutionStartEvent;
type EndEvent = vscode.TerminalShellExecutionEndEvent;
interface Deliver {
  start: (e: StartEvent) => void;
  end: (e: EndEvent) => void;
}
/** Decides what the runner hears of each event VS Code reports: `deliver` it (now, later, changed, with others) or not. */
interface Tamper {
  start?: (e: StartEvent, deliver: Deliver) => void;
  end?: (e: EndEvent, deliver: Deliver) => void;
}

/** Waits for a new terminal on a loaded machine (the defaults, 4 s and 8 s, are what a user's VS Code gets). */
const SLOW_MACHINE = { waitForIntegrationMs: 20_000, firstRunReportWaitMs: 20_000 };
/** The terminal the tests' runner opens (its own name, so no other terminal is taken for it). */
const TERMINAL = "Pi Chat nets";
const ppidLine = "printf 'ppid:%s\\n' \"$PPID\"";

describe("Pi Chat terminal safety nets (VS Code loses track of a typed command)", function () {
  this.timeout(90_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let relay: vscode.Disposable | undefined;
  /** Each line the runner typed in the terminal (as the terminal got it, and as sent), with when. */
  let typed: { line: string; at: number; sent: string }[] = [];
  let logFrom = 0;
  /** The log lines of this test. */
  const logged = (...parts: string[]) => api.logLines.slice(logFrom).some((l) => parts.every((p) => l.includes(p)));

  before(async () => {
    ({ server, api } = await startChatView());
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", true, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await api?.commands.setTerminalSeams({});
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });
  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    typed = [];
    launched.clear();
    trace.length = 0;
    logFrom = api.logLines.length;
  });
  afterEach(async function () {
    if (this.currentTest?.state === "failed") console.log(`[terminal-nets] what VS Code reported:\n${trace.join("\n")}`);
    // The next test gets a new runner and terminal: what this one taught the runner stays here.
    await api.commands.setTerminalSeams({});
    relay?.dispose();
    relay = undefined;
  });

  /**
   * The next command gets a new runner: VS Code's events reach it through `tamper`, and the runs
   * `standIn` picks (by their approved command) get a stand-in execution. `damage` changes a launch
   * line the way a terminal can (characters dropped): its first part is typed as the line, each
   * further part a moment later as a line of its own (the rest of a line that arrived after its Enter).
   */
  async function useSeams(seams: {
    tamper?: Tamper;
    standIn?: (command: string) => boolean;
    damage?: (line: string, typedBefore: number) => string[];
    startReportWaitMs?: number;
    retryTerminalAfterMs?: number;
    retryClock?: () => number;
    waitForIntegrationMs?: number;
    firstRunReportWaitMs?: number;
  }) {
    const { tamper = {}, standIn, damage, ...times } = seams;
    const events = tamperedEvents(tamper);
    relay = events;
    await api.commands.setTerminalSeams({
      ...times,
      name: TERMINAL,
      events,
      execute: (integration, sent) => {
        const noOp = sent.startsWith(":");
        // The command the launch line runs, read from its launcher file now (it deletes itself as it starts).
        const command = noOp ? sent : approvedCommand(sent);
        if (!noOp) launched.set(sent, command);
        const launchLines = typed.filter((t) => !t.line.startsWith(":")).length;
        const [line = sent, ...later] = noOp || !damage ? [sent] : damage(sent, launchLines);
        typed.push({ line, at: Date.now(), sent });
        const real = integration.executeCommand(line);
        later.forEach((part, i) => setTimeout(() => vscode.window.terminals.find((t) => t.name === TERMINAL)?.sendText(part, true), 150 * (i + 1)));
        // As when VS Code pairs the run with another object: the one we got never starts, ends or prints.
        return standIn?.(command) ? { commandLine: real.commandLine, cwd: real.cwd, read: async function* () {} } : real;
      },
    });
  }

  const card = (id: string) => toolCard(api, id);
  const via = (item: ToolItem) => (item.details as { via: string }).via;
  const exitCode = (item: ToolItem) => (item.details as { exitCode: number | null }).exitCode;
  /** The shell of the tests' terminal: the `$PPID` of a command it ran. */
  const terminalShell = () => vscode.window.terminals.find((t) => t.name === TERMINAL)?.processId;
  const terminalShells = () => Promise.all(vscode.window.terminals.filter((t) => t.name === TERMINAL).map((t) => t.processId));
  const ppidOf = (text: string | undefined) => Number(/ppid:(\d+)/.exec(text ?? "")?.[1]);

  /**
   * Pi runs `command` and the user allows it: its card, the tool result the model read, and how long
   * it took once allowed. The run's time-out ends a run nothing else ends well before the test's.
   */
  async function runAllowed(id: string, command: string, timeoutSeconds = 30): Promise<{ done: ToolItem; model: string; ms: number }> {
    let model = "";
    server.push(
      () => ({ toolCalls: [{ id, name: "run_command", arguments: { command, timeoutSeconds } }] }),
      (body) => {
        model = JSON.stringify(body.messages.filter((m) => m.role === "tool").pop()?.content);
        return { text: "Done." };
      },
    );
    void api.view.receive({ type: "chat/send", v: 1, text: `Run ${id}` });
    await waitFor(`${id} to ask`, () => card(id)?.approval?.state === "pending");
    const allowed = Date.now();
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: id, decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    const ms = Date.now() - allowed;
    assert.equal(server.pending(), 0, "the model got the result");
    const done = card(id)!;
    console.log(`[terminal-nets] ${id} ran via ${via(done)} in ${ms} ms`);
    return { done, model, ms };
  }

  it("net 1: follows the execution VS Code re-paired with our command line: output and exit code from the terminal", async () => {
    await useSeams({ standIn: (command) => command.includes("repaired-") });
    // It prints a moment after it starts: output that comes with the start report can be lost, as
    // read() is called only once the start is reported (seen on a new terminal's first command).
    const { done, model } = await runAllowed("call_n1", `sleep 1; ${ppidLine}; printf 'repaired-%s\\n' $((6*7)); exit 4`);
    assert.equal(via(done), "terminal");
    assert.equal(exitCode(done), 4);
    assert.match(done.resultText ?? "", /repaired-42/);
    assert.equal(ppidOf(done.resultText), await terminalShell(), "the terminal's shell ran it");
    assert.match(model, /Exit code 4 .*repaired-42/);
    assert.doesNotMatch(model, /could not follow|Timed out/, "followed, not given up");
    // VS Code reports the launch line whole, or (under load) only its end: either is that run's.
    const launchLine = launchLineOf("repaired-") ?? "";
    const reported = api.logLines
      .slice(logFrom)
      .map((l) => /reported the command as (".*"): following that execution/.exec(l)?.[1])
      .find((v) => v !== undefined);
    assert.ok(reported !== undefined, "the runner said it followed the execution VS Code reported");
    const value = JSON.parse(reported) as string;
    console.log(`[terminal-nets] net 1 re-paired: VS Code reported ${value === launchLine ? "the whole launch line" : `its end ${JSON.stringify(value)}`}`);
    assert.ok(value.trim() !== "" && launchLine.trimEnd().endsWith(value.trim()), `reported ${reported}, launched ${JSON.stringify(launchLine)}`);
  });

  it("net 1: follows an execution VS Code reported with only the end of our launch line (its token)", async () => {
    // As seen under load: the rest of the typed line taken for the prompt (the old typed command
    // was reported as its last word, `</dev/null`; a launch line's last word is its token). The
    // runner hears the run's events with that command line; what it reads and how it ends are the real run's.
    const shown = new Map<vscode.TerminalShellExecution, vscode.TerminalShellExecution>();
    const tailOnly = (real: vscode.TerminalShellExecution): vscode.TerminalShellExecution => {
      if (!commandOf(real).includes("tail-")) return real;
      let execution = shown.get(real);
      if (!execution) {
        const value = real.commandLine.value.trim();
        execution = { commandLine: { ...real.commandLine, value: value.slice(value.lastIndexOf(" ") + 1) }, cwd: real.cwd, read: () => real.read() };
        shown.set(real, execution);
      }
      return execution;
    };
    const seams: Parameters<typeof useSeams>[0] = {
      standIn: (command) => command.includes("tail-"),
      tamper: {
        start: (e, deliver) => deliver.start({ terminal: e.terminal, shellIntegration: e.shellIntegration, execution: tailOnly(e.execution) }),
        end: (e, deliver) =>
          deliver.end({ terminal: e.terminal, shellIntegration: e.shellIntegration, execution: tailOnly(e.execution), exitCode: e.exitCode }),
      },
      startReportWaitMs: 8000,
    };
    await useSeams(seams);
    const { done, model, ms } = await runAllowed("call_n1t", `sleep 1; ${ppidLine}; printf 'tail-%s\\n' ok; exit 3`);
    assert.equal(via(done), "terminal");
    assert.equal(exitCode(done), 3);
    assert.match(done.resultText ?? "", /tail-ok/);
    assert.equal(ppidOf(done.resultText), await terminalShell());
    assert.match(model, /Exit code 3 .*tail-ok/);
    assert.doesNotMatch(model, /could not follow|Timed out/, `${ms} ms: followed, not given up`);
    const line = launchLineOf("tail-") ?? "";
    assert.ok(logged(`reported the command as ${JSON.stringify(line.slice(line.lastIndexOf(" ") + 1))}: following that execution`));
  });

  it("net 4: a run whose end VS Code never reports ends once nothing runs below the shell; card and model are told", async () => {
    const seams: Parameters<typeof useSeams>[0] = {
      tamper: {
        end: (e, deliver) => {
          if (!commandOf(e.execution).includes("noend-")) deliver.end(e);
        },
      },
    };
    await useSeams(seams);
    // Running for 3 s: not taken as over while it runs.
    const { done, model, ms } = await runAllowed("call_n4", `sleep 3; printf 'noend-%s\\n' done`, 40);
    assert.equal(via(done), "terminal");
    // A lower bound only: a busy machine makes every step slower, never faster. How it ended is read from the result.
    assert.ok(ms >= 3000, `${ms} ms: not taken as over while it ran`);
    assert.doesNotMatch(model, /Timed out/, "ended after the command, not at its 40 s time-out");
    assert.equal(exitCode(done), null);
    assert.match(done.resultText ?? "", /noend-done/);
    assert.match(
      done.resultText ?? "",
      /VS Code did not report how this command ended in the "Pi Chat" terminal: it no longer runs, and its exit code is unknown\. The next runs use a child process\./,
    );
    assert.match(model, /noend-done.*exit code is unknown/);
    assert.ok(logged("did not report the end of", "noend-", "taken as ended"));
    const next = await runAllowed("call_n4b", `${ppidLine}; printf 'next\\n'`);
    assert.equal(via(next.done), "process");
    assert.equal(ppidOf(next.done.resultText), process.pid);
  });

  it("net 1: ignores another command reported in its busy terminal", async () => {
    const other: vscode.TerminalShellExecution = {
      commandLine: { value: "printf someone-else", isTrusted: true, confidence: vscode.TerminalShellExecutionCommandLineConfidence.High },
      cwd: undefined,
      read: async function* () {
        yield "someone-else\n";
      },
    };
    const seams: Parameters<typeof useSeams>[0] = {
      tamper: {
        // Just before ours starts, another command starts and ends (exit 7) in the same terminal.
        start: (e, deliver) => {
          if (commandOf(e.execution).includes("ours-")) {
            deliver.start({ terminal: e.terminal, shellIntegration: e.shellIntegration, execution: other });
            deliver.end({ terminal: e.terminal, shellIntegration: e.shellIntegration, execution: other, exitCode: 7 });
          }
          deliver.start(e);
        },
      },
    };
    await useSeams(seams);
    const { done, model } = await runAllowed("call_n1b", `${ppidLine}; printf 'ours-%s\\n' $((2+3))`);
    assert.equal(via(done), "terminal");
    assert.equal(exitCode(done), 0);
    assert.match(done.resultText ?? "", /ours-5/);
    assert.doesNotMatch(done.resultText ?? "", /someone-else/);
    assert.equal(ppidOf(done.resultText), await terminalShell());
    assert.match(model, /Exit code 0 .*ours-5/);
    assert.doesNotMatch(model, /someone-else/);
    assert.ok(logged('reported another command, "printf someone-else": not followed'));
  });

  it("net 2: a new terminal is used only once the end of its no-op first run is reported", async () => {
    let delayed = false;
    let firstEndAt = 0;
    await useSeams({
      tamper: {
        // The end of the terminal's first run is reported 2 s late.
        end: (e, deliver) => {
          if (delayed || e.terminal.name !== TERMINAL) return deliver.end(e);
          delayed = true;
          setTimeout(() => {
            firstEndAt = Date.now();
            deliver.end(e);
          }, 2000);
        },
      },
    });
    // When the line is typed is checked, not what VS Code reports of it afterwards: a run it loses
    // track of ends by its 10 s time-out.
    const { done } = await runAllowed("call_n2", `${ppidLine}; printf 'after-first-run\\n'`, 10);
    assert.equal(via(done), "terminal");
    // The no-op, then the launch line (and, when VS Code damaged that one, the runner's second launch).
    const [noOp, ...launches] = typed.map((t) => (t.line.startsWith(":") ? t.line : "the command"));
    assert.equal(noOp, ": Pi Chat runs commands here");
    assert.ok(launches.length === 1 || (launches.length === 2 && logged("launching it again")), `${launches.length} launch lines`);
    assert.ok(
      firstEndAt > 0 && typed[1]!.at >= firstEndAt,
      firstEndAt > 0 ? `typed ${typed[1]!.at - firstEndAt} ms after the first run's end was reported` : "typed before the first run's end was reported",
    );
  });

  it("net 2: a new terminal that does not report its first run's end is closed; the commands run as child processes", async () => {
    await useSeams({
      tamper: {
        end: (e, deliver) => {
          if (e.terminal.name !== TERMINAL) deliver.end(e);
        },
      },
    });
    const { done, model, ms } = await runAllowed("call_n2b", `${ppidLine}; printf 'fell-back\\n'`);
    assert.equal(via(done), "process");
    assert.equal(exitCode(done), 0);
    assert.equal(ppidOf(done.resultText), process.pid, "a child process of the extension host ran it");
    assert.match(model, /Exit code 0 .*fell-back/);
    assert.ok(ms >= 8000, `${ms} ms: the first run's end was awaited 8 s`);
    assert.doesNotMatch(model, /Timed out/, "the fallback ran it, not the run's 30 s time-out");
    assert.ok(logged("or did not report its first run: commands run as child processes"));
    await waitFor("the unused terminal to close", () => !vscode.window.terminals.some((t) => t.name === TERMINAL));
    // The next command goes straight to a child process: no new terminal, nothing typed.
    const next = await runAllowed("call_n2c", ppidLine);
    assert.equal(via(next.done), "process");
    assert.equal(ppidOf(next.done.resultText), process.pid);
    assert.deepEqual(
      typed.map((t) => t.line),
      [": Pi Chat runs commands here"],
    );
  });

  it("net 3: a typed command whose start is never reported is stopped after the wait; card and model are told; child processes for a while", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-chat-nets-"));
    let whileClock = 0;
    try {
      const lost = (execution: vscode.TerminalShellExecution) => commandOf(execution).includes("lost-");
      await useSeams({
        standIn: (command) => command.includes("lost-"),
        // Neither its start nor its end is reported.
        tamper: {
          start: (e, deliver) => {
            if (!lost(e.execution)) deliver.start(e);
          },
          end: (e, deliver) => {
            if (!lost(e.execution)) deliver.end(e);
          },
        },
        // Shorter than the 15 s and 5 min of use; long enough for a loaded machine to start the command.
        startReportWaitMs: 8000,
        retryTerminalAfterMs: 10_000,
        // The while is read off this clock, which moves only when the test says: a slow machine
        // cannot run out of the while before the next command, nor the test wait it out.
        retryClock: () => whileClock,
      });
      // The shell and its sleeping child write their pids, then wait longer than the test.
      const pidFile = join(dir, "pids");
      const { done, model, ms } = await runAllowed("call_n3", `printf 'lost-start\\n'; sleep 120 & printf '%s %s\\n' $$ $! > ${pidFile}; wait`, 40);
      assert.ok(ms >= 8000, `${ms} ms: given up after the 8 s wait, not before`);
      assert.doesNotMatch(model, /Timed out/, "given up after the wait, not at the 40 s time-out");
      assert.ok(existsSync(pidFile), "the command started in the terminal before the give-up");
      assert.equal(via(done), "terminal");
      assert.match(
        done.resultText ?? "",
        /could not follow this command in the "Pi Chat" terminal \(VS Code did not report its start within 8 s\), so it was stopped\. Run it again: the next runs use a child process\./,
      );
      assert.match(model, /could not follow this command .* Run it again: the next runs use a child process\./);
      const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
      assert.equal(pids.length, 2);
      await waitFor("the shell and its sleep to be gone", () => pids.every((pid) => !running(pid)), 3000);
      assert.ok(logged("did not report the start of", "lost-start"));

      const next = await runAllowed("call_n3b", `${ppidLine}; printf 'again\\n'`);
      assert.equal(via(next.done), "process");
      assert.equal(ppidOf(next.done.resultText), process.pid);
      assert.match(next.done.resultText ?? "", /again/);

      // After that while, the terminal (still there, at its prompt) runs commands again.
      whileClock += 10_500;
      const later = await runAllowed("call_n3c", `${ppidLine}; printf 'back-in-terminal\\n'`);
      assert.equal(via(later.done), "terminal");
      // In a "Pi Chat nets" terminal (a loaded VS Code may have made a new one).
      assert.ok((await terminalShells()).includes(ppidOf(later.done.resultText)), "a terminal's shell ran it");
      assert.match(later.done.resultText ?? "", /back-in-terminal/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("part 2: a damaged launch line runs nothing; each run says it did not start (120 damaged lines)", async function () {
    this.timeout(600_000);
    const dir = mkdtempSync(join(tmpdir(), "pi-chat-damaged-"));
    try {
      mkdirSync(join(dir, "approved"));
      // Deterministic damage: the first `count` lines of each kind, from a seeded generator.
      const random = seeded(23);
      const pick = (below: number) => Math.floor(random() * below);
      const kinds = ["start lost", "middle lost", "end lost", "end arrived late"] as const;
      let kind: (typeof kinds)[number] = "start lost";
      const damage = (line: string): string[] => {
        const cut = 1 + pick(line.length - 1); // 1 … length-1
        if (kind === "start lost") return [line.slice(cut)];
        if (kind === "end lost") return [line.slice(0, cut)];
        if (kind === "end arrived late") return [line.slice(0, cut), line.slice(cut)];
        const from = pick(line.length - 1);
        return [line.slice(0, from) + line.slice(from + 1 + pick(line.length - from - 1))];
      };
      // Exit codes VS Code reported for the damaged lines: a shell that ran nothing says 125-127.
      const exitCodes: (number | undefined)[] = [];
      await useSeams({
        damage,
        tamper: {
          end: (e, deliver) => {
            if (e.terminal.name === TERMINAL && !e.execution.commandLine.value.startsWith(":")) exitCodes.push(e.exitCode);
            deliver.end(e);
          },
        },
        // A damaged line VS Code reports as another command is given up after 1.5 s, not 15; and
        // the terminal stays in use (no while of child processes) so that every line goes there.
        startReportWaitMs: 1500,
        retryTerminalAfterMs: 0,
      });
      const runner = api.commands.runner();
      // Each run: its launch lines as the terminal got them (the first, and the one the runner
      // launches again after a line that ran nothing: here damaged too), and what it said.
      const results: { kind: string; lines: string[]; ran: boolean; said: boolean; relaunchNotes: number; notStarted: boolean }[] = [];
      // Runs that never reached a terminal (a new terminal VS Code did not bring up or track: the
      // runner's nets send those to a child process, which runs the approved command as it is).
      const childRuns: { ranApproved: boolean; file: string }[] = [];
      const damagedLines = (k?: string) => results.filter((r) => !k || r.kind === k).reduce((sum, r) => sum + r.lines.length, 0);
      for (const k of kinds) {
        kind = k;
        for (let attempt = 0; damagedLines(k) < 30; attempt++) {
          assert.ok(attempt < 30, `only ${damagedLines(k)} "${k}" lines reached the terminal in ${attempt} runs`);
          const n = results.length + childRuns.length;
          const before = typed.length;
          let output = "";
          const run = await runner.start({ command: `cd approved && touch ran-${n}`, cwd: dir, onOutput: (c) => (output += String(c)) });
          const exit = await run.exited;
          if (run.via === "process") {
            childRuns.push({ ranApproved: exit.exitCode === 0 && existsSync(join(dir, "approved", `ran-${n}`)), file: `ran-${n}` });
            continue;
          }
          results.push({
            kind: k,
            lines: typed
              .slice(before)
              .filter((t) => !t.sent.startsWith(":"))
              .map((t) => t.line),
            // Neither the approved command nor any tail of it left its mark, here or in approved/.
            ran: existsSync(join(dir, `ran-${n}`)) || existsSync(join(dir, "approved", `ran-${n}`)),
            said: output.includes("did not receive the launch line of this command whole, so the command did not run"),
            relaunchNotes: output.split("so nothing ran; Pi Chat launched the command again").length - 1,
            notStarted: exit.notStarted === true,
          });
        }
      }
      // Lines whose rest arrived late: let it run (and fail) before counting.
      await new Promise((r) => setTimeout(r, 1000));
      const ranAnything = results.filter((r) => r.ran);
      const unreported = results.filter((r) => !r.said || !r.notStarted);
      // Launched again once, with a note, and no more: a run types its first line and one more.
      const notRelaunchedOnce = results.filter((r) => r.lines.length !== 2 || r.relaunchNotes !== 1);
      const shellCodes = new Set(exitCodes.filter((c): c is number => c !== undefined));
      console.log(
        `[terminal-nets] damaged launch lines: ${damagedLines()} in ${results.length} runs; ran anything: ${ranAnything.length}; runs not reported as not started: ${unreported.length}; not launched again exactly once: ${notRelaunchedOnce.length}; exit codes VS Code reported: ${[...shellCodes].sort().join(", ")} (${exitCodes.filter((c) => c === undefined).length} unknown); runs sent to a child process instead: ${childRuns.length}`,
      );
      assert.equal(damagedLines(), 120);
      assert.ok(
        childRuns.every((r) => r.ranApproved),
        "a run sent to a child process ran the approved command",
      );
      assert.deepEqual(ranAnything, [], "damaged lines that ran something");
      assert.deepEqual(unreported, [], "damaged lines not reported as not run");
      assert.deepEqual(notRelaunchedOnce, [], "runs not launched again exactly once");
      // 125: refused by the launcher; 126/127: not a command (a folder, no such file); 130 and 143:
      // the rest of a line arriving after the run was over, interrupted while bash looked it up by
      // the ^C VS Code types before the next launch line, or by the run's clean-up.
      assert.deepEqual(
        [...shellCodes].filter((c) => ![125, 126, 127, 130, 143].includes(c)),
        [],
        "the shell ran a program for a damaged line",
      );
      assert.deepEqual(
        readdirSync(join(dir, "approved")).sort(),
        childRuns.map((r) => r.file).sort(),
        "only the child-process runs ran in the approved folder",
      );
      const shell = await terminalShell();
      assert.ok(shell);
      assert.deepEqual(descendantsOf(shell), [], "nothing runs below the terminal's shell");
      // An undamaged line still runs the approved command.
      await useSeams({});
      let output = "";
      const whole = await api.commands.runner().start({ command: "cd approved && touch whole && printf ok", cwd: dir, onOutput: (c) => (output += String(c)) });
      const exit = await whole.exited;
      assert.equal(whole.via, "terminal");
      assert.equal(exit.exitCode, 0, output);
      assert.ok(existsSync(join(dir, "approved", "whole")));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("part 2: the card and the model are told when a damaged launch line did not run the command", async () => {
    // A loaded machine may take longer to bring up a new terminal: this test needs one.
    await useSeams({ damage: (line) => [line.slice(7)], ...SLOW_MACHINE });
    const { done, model } = await runAllowed("call_dmg", "printf 'should-not-run\\n'");
    assert.equal(via(done), "terminal");
    assert.doesNotMatch(done.resultText ?? "", /should-not-run\n/);
    assert.match(done.resultText ?? "", /The command could not be started\./);
    // Launched again once (damaged again here), then told.
    assert.equal(typed.filter((t) => !t.sent.startsWith(":")).length, 2);
    assert.equal((done.resultText ?? "").split("so nothing ran; Pi Chat launched the command again").length - 1, 1);
    assert.match(done.resultText ?? "", /did not receive the launch line of this command whole, so the command did not run/);
    assert.match(
      model,
      /could not be started.*did not receive the launch line of this command whole, so the command did not run, and nothing else ran in its place/,
    );
    assert.ok(logged("did not run the launch line of", "should-not-run", "launching it again"));
  });

  it("part 2: a launch line that ran nothing is launched again, once, with a note: the command runs once", async () => {
    // VS Code loses the start of a new terminal's first line now and then; here, always, and only the first.
    const dir = mkdtempSync(join(tmpdir(), "pi-chat-relaunch-"));
    try {
      await useSeams({ damage: (line, before) => (before === 0 ? [line.slice(7)] : [line]), ...SLOW_MACHINE });
      const { done, model } = await runAllowed("call_relaunch", `echo run >> ${dir}/runs; ${ppidLine}; printf 'ran-%s\\n' $((3*4))`);
      assert.equal(via(done), "terminal");
      assert.equal(exitCode(done), 0);
      assert.match(done.resultText ?? "", /ran-12/);
      assert.equal(ppidOf(done.resultText), await terminalShell(), "the terminal's shell ran it");
      assert.equal(readFileSync(join(dir, "runs"), "utf8"), "run\n", "the command ran once");
      assert.equal(typed.filter((t) => !t.sent.startsWith(":")).length, 2, "the first launch line and one more");
      assert.match(
        done.resultText ?? "",
        /did not receive the launch line of this command whole, so nothing ran; Pi Chat launched the command again\. What follows is that run\./,
      );
      assert.match(model, /Exit code 0 .*Pi Chat launched the command again.*ran-12/);
      assert.ok(logged("launched", "again: its first launch line ran nothing"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("part 3: Stop, time-out, background stop and stopAll, chat delete and VS Code closing leave none of a terminal run's processes", async function () {
    this.timeout(300_000);
    const root = mkdtempSync(join(tmpdir(), "pi-chat-escapes-"));
    const left: Record<string, number[]> = {};
    let fresh = 0;
    /** A folder of its own for each run (the run waits for its server.pid). */
    const folder = () => {
      const path = join(root, `run-${fresh++}`);
      mkdirSync(path);
      return path;
    };
    const started: { pids: number[]; tag: string }[] = [];
    try {
      await useSeams(SLOW_MACHINE);
      /** Runs the escaping command in the terminal; `stop` once all four printed; what is left after. */
      const foreground = async (name: string, timeoutMs: number, stop?: (controller: AbortController) => void) => {
        const controller = new AbortController();
        let run: { pids: number[]; tag: string } | undefined;
        const result = await runCommandOnce({
          runner: api.commands.runner(),
          command: ESCAPING_RUN,
          cwd: folder(),
          timeoutMs,
          signal: controller.signal,
          onProgress: (p) => {
            if (run) return;
            run = escapees(p.tail.join("\n"));
            if (run) stop?.(controller);
          },
        });
        run ??= escapees(result.output.text);
        assert.ok(run, `${name}: ${result.output.text}`);
        started.push(run);
        assert.equal(result.via, "terminal", name);
        left[name] = leftOf(run);
      };
      await foreground("Stop", 60_000, (c) => c.abort());
      await foreground("time-out", 15_000);

      const background = async (name: string, stop: (b: BackgroundCommands, id: string) => Promise<unknown>) => {
        const commands = new BackgroundCommands();
        const cwd = folder();
        const begun = await commands.start({
          id: name,
          command: ESCAPING_RUN,
          cwd: ".",
          absoluteCwd: cwd,
          runner: api.commands.runner(),
          readyPattern: /^tag=/,
          waitMs: 30_000,
        });
        const run = escapees(begun.output.text);
        assert.ok(run, `${name}: ${begun.output.text}`);
        started.push(run);
        assert.equal(begun.process.via, "terminal", name);
        await stop(commands, name);
        left[name] = leftOf(run);
      };
      await background("background Stop", (b, id) => b.stop(id, "user"));
      await background("background stopAll", (b) => b.stopAll("chatClosed"));
      await background("VS Code closing", () => api.commands.endAllRuns());

      // Deleting the chat that runs it in the background (through the view, as the user does).
      const chatId = api.screen.currentSession.id;
      const id = "call_escape_bg";
      const cwd = folder();
      server.push(
        () => ({ toolCalls: [{ id, name: "run_command", arguments: { command: `cd ${cwd} && ${ESCAPING_RUN}`, background: true, readyPattern: "^tag=" } }] }),
        () => ({ text: "Started." }),
      );
      void api.view.receive({ type: "chat/send", v: 1, text: "Start the escapees" });
      await waitFor(`${id} to ask`, () => card(id)?.approval?.state === "pending");
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: id, decision: "allow" });
      await api.screen.currentSession.waitForIdle();
      // The card shows the first lines (its wait may end before the server listens): the server's
      // pid is in its file, and the run's tag in the environment of a process that printed its pid.
      const shown = card(id)?.resultText ?? "";
      const firstPids = ["orphan", "stubborn", "ghost"].map((name) => Number(new RegExp(`${name}=(\\d+)`).exec(shown)?.[1]));
      assert.ok(
        firstPids.every((pid) => pid > 0),
        shown,
      );
      const serverPid = await waitFor(
        "the server to listen",
        () => existsSync(join(cwd, "server.pid")) && Number(readFileSync(join(cwd, "server.pid"), "utf8")),
        60_000,
      );
      const tag = /(?:^|\0)PI_CHAT_RUN_TAG=([0-9a-f]+)/.exec(readFileSync(`/proc/${firstPids[0]}/environ`, "latin1"))?.[1] ?? "";
      assert.ok(tag, "the run's processes carry its tag");
      const run = { pids: [...firstPids, serverPid], tag };
      started.push(run);
      assert.equal(via(card(id)!), "terminal");
      await api.view.receive({ type: "chat/delete", v: 1, chatId });
      await waitFor("the deleted chat's processes to end", () => leftOf(run).length === 0, 10_000).catch(() => undefined);
      left["chat delete"] = leftOf(run);

      console.log(
        `[terminal-nets] processes left after each kind of stop: ${Object.entries(left)
          .map(([k, v]) => `${k} ${v.length}`)
          .join(", ")}`,
      );
      assert.deepEqual(left, Object.fromEntries(Object.keys(left).map((k) => [k, []])));
    } finally {
      console.log(
        `[terminal-nets] processes left: ${Object.entries(left)
          .map(([k, v]) => `${k} ${v.length}`)
          .join(", ")}`,
      );
      for (const run of started) for (const pid of leftOf(run)) process.kill(pid, "SIGKILL");
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/**
 * Each launch line the runner typed in this test, with the approved command its launcher file
 * holds: the typed line no longer carries the command, so a test picks a run by its launch line.
 */
const launched = new Map<string, string>();

/** The approved command in the launcher file a launch line (`<file> <token>`) starts (launchers.ts writes `exec <shell> -c '<command>'`). */
function approvedCommand(line: string): string {
  const script = readFileSync(line.slice(0, line.indexOf(" ")), "utf8");
  const quoted = / -c '((?:[^']|'\\'')*)' <\/dev\/null$/m.exec(script)?.[1];
  assert.ok(quoted !== undefined, `no command in the launcher of ${line}`);
  return quoted.replaceAll("'\\''", "'");
}

/**
 * The approved command of the launch line an execution reports, matched as the runner matches it
 * (the whole line, or its end: VS Code has reported just the token of a new terminal's first
 * line); the reported text itself when it is none of ours.
 */
function commandOf(execution: vscode.TerminalShellExecution): string {
  const value = execution.commandLine.value;
  for (const [line, command] of [...launched].reverse()) if (carriesLine(value, line)) return command;
  return value;
}

/** The (last) launch line typed for the command that holds `marker`. */
function launchLineOf(marker: string): string | undefined {
  return [...launched].reverse().find(([, command]) => command.includes(marker))?.[0];
}

/** What VS Code reported during a test, printed when it fails. */
const trace: string[] = [];
const traced = (what: string, e: StartEvent | EndEvent) =>
  trace.push(
    `${new Date().toISOString().slice(11, 23)} ${what} in ${e.terminal.name}: ${commandOf(e.execution).slice(0, 100)}${"exitCode" in e ? ` (exit ${e.exitCode})` : ""}`,
  );

/** VS Code's shell-execution events as the runner hears them, through `tamper` (each is delivered as is unless it says otherwise). */
function tamperedEvents(tamper: Tamper): ShellExecutionEvents & vscode.Disposable {
  const started = new vscode.EventEmitter<StartEvent>();
  const ended = new vscode.EventEmitter<EndEvent>();
  const deliver: Deliver = { start: (e) => started.fire(e), end: (e) => ended.fire(e) };
  const subscriptions = [
    vscode.window.onDidStartTerminalShellExecution((e) => {
      traced("start", e);
      tamper.start ? tamper.start(e, deliver) : deliver.start(e);
    }),
    vscode.window.onDidEndTerminalShellExecution((e) => {
      traced("end", e);
      tamper.end ? tamper.end(e, deliver) : deliver.end(e);
    }),
    started,
    ended,
  ];
  return {
    onDidStartTerminalShellExecution: started.event,
    onDidEndTerminalShellExecution: ended.event,
    dispose: () => {
      for (const s of subscriptions) s.dispose();
    },
  };
}

/** Alive and not a zombie. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

/** A small seeded generator (mulberry32): the same damage on every run of the test. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
