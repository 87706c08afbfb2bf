// The terminal's launch line (src/host/shell/launchers.ts), in a real bash without VS Code: whatever
// is lost of the line (its start, its end, characters in the middle), what bash runs of it is
// nothing; the whole line runs the approved command once; and a launcher the runner claimed first
// never runs. The host test (terminal-nets "part 2") does the same through a real terminal.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { carriesLine, claimLauncher, writeLauncher, type Launcher } from "../../../src/host/shell/launchers";
import { tempDir } from "../../support/temp";

const BASH = "/bin/bash";

describe("commands: the terminal's launch line runs the approved command whole, or nothing", function () {
  this.timeout(120_000);
  let dir: ReturnType<typeof tempDir>;
  /** The command's folder: apart from the launchers' folder, as the workspace is from the extension's storage. */
  let cwd: string;
  beforeEach(() => {
    dir = tempDir("launch");
    cwd = join(dir.path, "work");
    mkdirSync(cwd);
  });
  afterEach(() => dir.cleanup());

  /** A launcher whose command leaves `ran` in the folder (a tail of it, `touch ran`, would too). */
  const launcher = (): Launcher => {
    const made = writeLauncher(join(dir.path, "launchers"), BASH, "cd . && touch ran");
    assert.ok(typeof made !== "string", String(made));
    return made;
  };
  /** bash runs `line` as a typed line (the words are the same; `--`: a line starting with `-` is a command, not an option). */
  const type = (line: string) => spawnSync(BASH, ["--noprofile", "--norc", "-c", "--", line], { cwd, encoding: "utf8" });

  it("the whole line runs the command once; the file is gone after", () => {
    const l = launcher();
    assert.match(l.line, /^\/[A-Za-z0-9_./-]+ \d+$/, "a path and digits: nothing to quote, nothing to expand");
    assert.equal(type(l.line).status, 0);
    assert.ok(existsSync(join(cwd, "ran")));
    assert.ok(!existsSync(l.file), "the launcher deleted itself");
    assert.equal(claimLauncher(l), false, "the runner knows it started");
    assert.notEqual(type(l.line).status, 0, "a second time runs nothing");
  });

  it("every damaged version of the line runs nothing: start lost, end lost, a piece of the middle lost", () => {
    const l = launcher();
    const { line } = l;
    const damaged = new Set<string>();
    for (let i = 1; i < line.length; i++) {
      damaged.add(line.slice(i)); // the start lost
      damaged.add(line.slice(0, i)); // the end lost
      for (const length of [1, 2, 5, 17]) if (i + length <= line.length) damaged.add(line.slice(0, i - 1) + line.slice(i - 1 + length)); // a piece lost
    }
    damaged.delete(line);
    damaged.delete("");
    const statuses = new Map<number, number>();
    for (const text of damaged) {
      const { status } = type(text);
      statuses.set(status ?? -1, (statuses.get(status ?? -1) ?? 0) + 1);
      assert.ok(!existsSync(join(cwd, "ran")), `${JSON.stringify(text)} ran the command`);
      assert.ok(existsSync(l.file), `${JSON.stringify(text)} started the launcher`);
    }
    console.log(
      `[launchers] damaged launch lines: ${damaged.size}; ran anything: 0; exit statuses: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(", ")}`,
    );
    // 125: the launcher refused a wrong or missing token; 126: a folder; 127: no such command or file.
    assert.deepEqual(
      [...statuses.keys()].filter((s) => ![125, 126, 127].includes(s)),
      [],
    );
    // Still there, so the runner knows it never ran, and takes it back: it can never run later.
    assert.equal(claimLauncher(l), true);
    assert.notEqual(type(line).status, 0);
    assert.ok(!existsSync(join(cwd, "ran")));
  });

  it("a launcher the runner claimed before the shell read its line never runs", () => {
    const l = launcher();
    assert.equal(claimLauncher(l), true);
    assert.equal(claimLauncher(l), true, "the first answer stays");
    assert.notEqual(type(l.line).status, 0);
    assert.ok(!existsSync(join(cwd, "ran")));
    assert.deepEqual(readdirSync(join(dir.path, "launchers")), []);
  });

  it("a folder a shell would need quoted is refused (the command then runs as a child process)", () => {
    assert.equal(typeof writeLauncher(join(dir.path, "with space"), BASH, "true"), "string");
    assert.equal(typeof writeLauncher(join(dir.path, "quote'd"), BASH, "true"), "string");
  });

  it("a reported command line is ours when it is the line or its end, line breaks of the terminal's wrapping aside", () => {
    const line = "/tmp/pi-chat-host-state-tdIsnk/command-launchers/123456789012345678 987654321098765432109876";
    assert.ok(carriesLine(line, line));
    assert.ok(carriesLine(`${line}\n`, line));
    assert.ok(carriesLine("987654321098765432109876", line), "the end only (the rest taken for the prompt)");
    // VS Code 1.139 under load: a damaged line (its first 7 characters lost) reported wrapped at a new terminal's width.
    assert.ok(carriesLine("\n-chat-host\n-state-tdIsnk/command-la\r\nunchers/123456789012345678 987654321098765432109876", line));
    assert.ok(!carriesLine("", line));
    assert.ok(!carriesLine("\n\n", line));
    assert.ok(!carriesLine("ls -la", line));
    assert.ok(!carriesLine("-chat-host\n-state-tdIsnk/command-launchers/123456789012345678 11111", line), "another launcher's token");
  });
});
