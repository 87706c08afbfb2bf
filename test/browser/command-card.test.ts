// The run_command card in the real webview bundle: one card that asks (command, folder,
// Allow / Deny / Always allow with an editable rule), streams a tail with Stop while running,
// then shows the exit code, duration and output with "Open the whole output".
import * as assert from "node:assert/strict";
import { ChatPage, useChatPage } from "./harness";
import { Script, toolCall } from "./script";
import { NO_RULES_ON_WINDOWS } from "../../src/core/permissions/command-rules";

describe("command cards", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("asks on the card, posts the decision and the rule, then streams and shows the result", async () => {
    const command = "npm test -- --grep parser && git status";
    const script = new Script()
      .start()
      .user("Run the tests.")
      .assistant([toolCall("cmd-1", "run_command", { command, cwd: "pkg" })])
      .toolStart("cmd-1", "run_command", { command, cwd: "pkg" })
      .raw({
        type: "approval/request",
        toolCallId: "cmd-1",
        toolName: "run_command",
        command,
        cwd: "pkg",
        suggestedRules: ["npm test -- --grep parser", "git status"],
      });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="cmd-1"]');
    assert.equal(await card.count(), 1);
    assert.equal(await chat.page.locator(".item.approval").count(), 0, "no second card for the question");
    assert.equal(await card.locator(".command-line").innerText(), `$ ${command}`);
    assert.equal(await card.locator(".command-folder").innerText(), "pkg");
    assert.match(await card.locator(".command-outcome").innerText(), /Waiting for your approval/);
    assert.equal(await card.locator(".rule-input").inputValue(), "npm test -- --grep parser\ngit status");
    assert.match(await card.locator(".rule-preview").innerText(), /Allows exactly the command above/);

    await chat.clearPosted();
    await card.locator(".rule-input").fill("npm test -- *\ngit status");
    await card.getByRole("button", { name: "Always allow in this workspace" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "approval/decide", v: 1, toolCallId: "cmd-1", decision: "allowAlways", rule: "npm test -- *\ngit status" }]);

    await chat.events(
      script
        .raw({ type: "approval/decided", toolCallId: "cmd-1", decision: "allowed", rule: "npm test -- *, git status" })
        .raw({
          type: "tool/progress",
          toolCallId: "cmd-1",
          details: { progress: { tail: ["> test", "\u2713 parser 1", "\u2713 parser 2"], lines: 3, elapsedMs: 1500 } },
        })
        .take(),
    );
    assert.match(await card.locator(".command-decision").innerText(), /Allowed by your rule npm test -- \*, git status/);
    assert.equal(await card.locator(".command-tail").innerText(), "> test\n\u2713 parser 1\n\u2713 parser 2");
    assert.match(await card.locator(".command-outcome").innerText(), /Running · 1\.5 s/);
    await chat.clearPosted();
    await card.getByRole("button", { name: "Stop the command" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "chat/stop", v: 1 }]);

    await chat.events(
      script
        .toolEnd("cmd-1", "run_command", {
          text: `$ ${command}\nExit code 1 after 2.1 s.\n1 failing`,
          details: {
            command,
            cwd: "pkg",
            via: "process",
            end: "exited",
            exitCode: 1,
            durationMs: 2100,
            totalLines: 1,
            totalBytes: 10,
            cutLines: 0,
            cutBytes: 0,
            invalidUtf8: false,
            logFile: "/tmp/x.log",
          },
          isError: false,
        })
        .take(),
    );
    assert.equal(await card.locator(".command-tail").count(), 0);
    assert.equal(await card.locator(".command-outcome").innerText(), "Exit code 1 · 2.1 s");
    assert.equal(await card.locator("details.tool-result").getAttribute("open"), "", "a failing command shows its output");
    assert.match(await card.locator("details.tool-result pre").innerText(), /1 failing/);
    await chat.clearPosted();
    await card.getByRole("button", { name: "Open the whole output" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "command/openOutput", v: 1, toolCallId: "cmd-1" }]);
  });

  it("a command started in the background says so, and how soon it was ready", async () => {
    const command = "npm run dev";
    const script = new Script()
      .start()
      .user("Start the dev server.")
      .assistant([toolCall("bg-1", "run_command", { command, readyPattern: "ready in" })])
      .toolStart("bg-1", "run_command", { command, readyPattern: "ready in" })
      .toolEnd("bg-1", "run_command", {
        text: "Started in the background with id bg-1: npm run dev (in .).",
        details: {
          command,
          cwd: ".",
          via: "terminal",
          end: "exited",
          exitCode: null,
          durationMs: 1800,
          totalLines: 0,
          totalBytes: 0,
          cutLines: 0,
          cutBytes: 0,
          invalidUtf8: false,
          background: { id: "bg-1", ready: "pattern", readyLine: "ready in 1.7 s" },
        },
      });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="bg-1"]');
    assert.equal(await card.locator(".command-outcome").innerText(), "Running in the background · ready after 1.8 s");
    // Its text holds the output so far; the start counts no lines, so the card claims no count.
    assert.equal(await card.locator(".tool-result summary").innerText(), "Output");
    assert.doesNotMatch(await card.innerText(), /Ended by a signal/);

    // Stop: reachable with the keyboard, named for its command, posts the background id.
    const stop = card.getByRole("button", { name: "Stop the background command npm run dev" });
    await stop.focus();
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [{ type: "command/stopBackground", v: 1, id: "bg-1" }]);
    assert.equal(await stop.isDisabled(), true, "one Stop is enough");
    assert.match(await stop.innerText(), /Stopping/);

    // The host says it is gone: the card says who stopped it and after how long, and offers no Stop.
    await chat.events(script.raw({ type: "command/backgroundState", id: "bg-1", state: { state: "stopped", by: "user", durationMs: 65_000 } }).take());
    assert.equal(await card.locator(".command-outcome").innerText(), "Stopped by you · 1 min 5 s");
    assert.equal(await card.locator(".stop-button").count(), 0);
    assert.match((await card.getAttribute("aria-label")) ?? "", /Stopped by you/);
  });

  it("a background command that exits on its own changes its card; a restored one that is gone offers no Stop", async () => {
    const details = (id: string) => ({
      command: `serve ${id}`,
      cwd: ".",
      via: "process",
      end: "exited",
      exitCode: null,
      durationMs: 5000,
      totalLines: 0,
      totalBytes: 0,
      cutLines: 0,
      cutBytes: 0,
      invalidUtf8: false,
      background: { id, ready: "waited" },
    });
    const script = new Script()
      .start()
      .user("Start two.")
      .assistant([
        toolCall("bg-a", "run_command", { command: "serve bg-a", background: "true" }),
        toolCall("bg-b", "run_command", { command: "serve bg-b", background: "true" }),
      ])
      .toolStart("bg-a", "run_command", { command: "serve bg-a", background: true })
      .toolEnd("bg-a", "run_command", { text: "Started", details: details("bg-a") })
      .toolStart("bg-b", "run_command", { command: "serve bg-b", background: true })
      .toolEnd("bg-b", "run_command", { text: "Started", details: details("bg-b") });
    await chat.events(script.take());
    const a = chat.page.locator('.command-card[data-item="bg-a"]');
    const b = chat.page.locator('.command-card[data-item="bg-b"]');
    assert.equal(await a.locator(".command-outcome").innerText(), "Running in the background");
    assert.equal(await a.locator(".stop-button").count(), 1);
    await chat.events(
      script
        .raw({ type: "command/backgroundState", id: "bg-a", state: { state: "exited", exitCode: 2, durationMs: 12_000 } })
        .raw({ type: "command/backgroundState", id: "bg-b", state: { state: "gone" } })
        .take(),
    );
    assert.equal(await a.locator(".command-outcome").innerText(), "Exit code 2 · 12 s");
    assert.equal(await a.locator(".stop-button").count(), 0);
    assert.equal(await b.locator(".command-outcome").innerText(), "Not running: it ended before this chat was reopened");
    assert.equal(await b.locator(".stop-button").count(), 0);
  });

  it("the question for a background run says it stays running, and shows the ready line Pi waits for", async () => {
    const script = new Script()
      .start()
      .user("Start it.")
      .assistant([toolCall("bg-q", "run_command", { command: "npm run dev", background: "true", readyPattern: "listening on" })])
      .toolStart("bg-q", "run_command", { command: "npm run dev", background: "true", readyPattern: "listening on" })
      .raw({
        type: "approval/request",
        toolCallId: "bg-q",
        toolName: "run_command",
        command: "npm run dev",
        cwd: ".",
        suggestedRules: ["npm run dev"],
        background: { readyPattern: "listening on" },
      })
      .assistant([toolCall("fg-q", "run_command", { command: "npm test" })])
      .toolStart("fg-q", "run_command", { command: "npm test" })
      .raw({ type: "approval/request", toolCallId: "fg-q", toolName: "run_command", command: "npm test", cwd: ".", suggestedRules: ["npm test"] });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="bg-q"]');
    assert.equal(await card.locator(".approval-question").innerText(), "Start this command in the background?");
    assert.match(await card.locator(".background-note").innerText(), /keeps running after Pi goes on, with a Stop button on this card/);
    assert.equal(await card.locator(".background-note .ready-pattern").innerText(), "listening on");
    assert.match(await card.locator(".background-note").innerText(), /or after 5\.0 s/);
    const plain = chat.page.locator('.command-card[data-item="fg-q"]');
    assert.equal(await plain.locator(".approval-question").innerText(), "Run this command?");
    assert.equal(await plain.locator(".background-note").count(), 0);
  });

  it("before saving, a rule with * is shown as commands it would allow and would still ask for; one that cannot be saved disables the button", async () => {
    const command = "git push origin main";
    const script = new Script()
      .start()
      .user("Push.")
      .assistant([toolCall("cmd-r", "run_command", { command })])
      .toolStart("cmd-r", "run_command", { command })
      .raw({ type: "approval/request", toolCallId: "cmd-r", toolName: "run_command", command, cwd: ".", suggestedRules: [command] });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="cmd-r"]');
    const save = card.getByRole("button", { name: "Always allow in this workspace" });
    const box = card.getByRole("textbox", { name: "Allow rules, one a line" });
    assert.equal(await box.inputValue(), command, "the card offers exactly the command");
    assert.match(await card.locator(".rule-preview").innerText(), /Allows exactly the command above, nothing added/);

    await box.fill("git push origin *");
    const allows = await card.locator(".rule-allows li").allInnerTexts();
    const asks = await card.locator(".rule-asks li").allInnerTexts();
    assert.ok(allows.includes("git push origin --force"), allows.join(" | "));
    for (const must of [
      "git push origin '~/.ssh/id_rsa'",
      "git push origin /etc/passwd",
      "git push origin origin :main",
      "git push origin https://elsewhere.example/repo.git",
    ]) {
      assert.ok(
        asks.some((a) => a.startsWith(must)),
        `${must} in ${asks.join(" | ")}`,
      );
    }
    // The preview describes the box for a screen reader.
    assert.equal(await box.getAttribute("aria-describedby"), await card.locator(".rule-preview").getAttribute("id"));
    assert.equal(await save.isEnabled(), true);

    await box.fill("git *");
    assert.match(await card.locator(".rule-preview").innerText(), /names what it runs/);
    assert.equal(await save.isEnabled(), false, "a rule that cannot be saved is not sent");
    await box.fill("git push upstream main");
    assert.match(await card.locator(".rule-preview").innerText(), /do not cover the command above/);
    assert.equal(await save.isEnabled(), false);
  });

  it("on Windows the card says rules are off and offers no rule form", async () => {
    const script = new Script()
      .start()
      .user("Go")
      .assistant([toolCall("cmd-w", "run_command", { command: "npm test" })])
      .toolStart("cmd-w", "run_command", { command: "npm test" })
      .raw({
        type: "approval/request",
        toolCallId: "cmd-w",
        toolName: "run_command",
        command: "npm test",
        cwd: ".",
        suggestedRules: [],
        ruleNote: NO_RULES_ON_WINDOWS,
      });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="cmd-w"]');
    assert.equal(await card.locator(".rule-input").count(), 0);
    assert.equal(await card.getByRole("button", { name: "Always allow in this workspace" }).count(), 0);
    assert.match(await card.locator(".tool-note").innerText(), /Allow rules are off on Windows: commands run through cmd\.exe/);
  });

  it("a command no rule can allow says so and offers no rule; a denial posts the reason", async () => {
    const script = new Script()
      .start()
      .user("Go")
      .assistant([toolCall("cmd-2", "run_command", { command: "echo $(id) > out" })])
      .toolStart("cmd-2", "run_command", { command: "echo $(id) > out" })
      .raw({ type: "approval/request", toolCallId: "cmd-2", toolName: "run_command", command: "echo $(id) > out", cwd: ".", suggestedRules: [] });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="cmd-2"]');
    assert.equal(await card.locator(".command-folder").innerText(), "workspace root");
    assert.equal(await card.locator(".rule-input").count(), 0);
    assert.match(await card.innerText(), /No rule can allow this command/);
    await chat.clearPosted();
    await card.locator(".reason-input").fill("no redirection please");
    await card.getByRole("button", { name: "Deny" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "approval/decide", v: 1, toolCallId: "cmd-2", decision: "deny", reason: "no redirection please" }]);
    await chat.events(script.raw({ type: "approval/decided", toolCallId: "cmd-2", decision: "denied", reason: "no redirection please" }).take());
    assert.match(await card.locator(".command-decision").innerText(), /Denied: no redirection please/);
  });

  it("a call refused before it ran (several folders, none named) names no folder and says it did not run", async () => {
    const reason = 'This workspace has several folders (app, server): give cwd, starting with the folder\'s name (e.g. "app").';
    const script = new Script()
      .start()
      .user("Where am I?")
      .assistant([toolCall("cmd-3", "run_command", { command: "pwd" })])
      .toolStart("cmd-3", "run_command", { command: "pwd" })
      // As the agent ends a call its hook refused: an error with empty details.
      .toolEnd("cmd-3", "run_command", { text: reason, details: {}, isError: true });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="cmd-3"]');
    assert.equal(await card.locator(".command-folder").count(), 0, "no “workspace root”: there is none with several folders");
    assert.equal(await card.locator(".command-outcome").innerText(), "Not run");
    assert.equal(await card.locator(".tool-result summary").innerText(), "Why it did not run");
    assert.equal(await card.getAttribute("aria-label"), "Command pwd: Not run");
    assert.match(await card.locator(".tool-result").innerText(), /give cwd/);
  });

  it("in a narrow sidebar the deny reason's hint is read whole, down to who gets it", async () => {
    // 270 px here is about the real workbench's default 300: its system-ui font is wider than this page's.
    const narrow = await ChatPage.open({ width: 270, height: 700 });
    try {
      await narrow.snapshot();
      const script = new Script()
        .start()
        .user("Go")
        .assistant([toolCall("cmd-4", "run_command", { command: "npm test" })])
        .toolStart("cmd-4", "run_command", { command: "npm test" })
        .raw({ type: "approval/request", toolCallId: "cmd-4", toolName: "run_command", command: "npm test", cwd: ".", suggestedRules: ["npm test"] });
      await narrow.events(script.take());
      const reason = narrow.page.locator('.command-card[data-item="cmd-4"] input.reason-input');
      const fit = await reason.evaluate((el) => {
        const input = el as HTMLInputElement;
        const style = getComputedStyle(input);
        const context = document.createElement("canvas").getContext("2d")!;
        context.font = `${style.fontSize} ${style.fontFamily}`;
        const room = input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
        return { hint: input.placeholder, text: context.measureText(input.placeholder).width, room };
      });
      assert.match(fit.hint, /sent to Pi/);
      assert.ok(fit.text <= fit.room, `“${fit.hint}” is ${Math.round(fit.text)} px in ${Math.round(fit.room)} px`);
    } finally {
      await narrow.close();
    }
  });
});
