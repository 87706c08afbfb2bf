import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createNodeWorkspaceFs, createReadFileTool, DEFAULT_READ_MAX_BYTES, type ReadFileToolOptions } from "../../../src/core/tools";
import { makeSandbox, rejection, textOf, type Sandbox } from "./helpers";

function numbered(count: number, width = 0): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`.padEnd(width, "x")).join("\n") + "\n";
}

describe("read_file", () => {
  let s: Sandbox;
  beforeEach(() => {
    s = makeSandbox();
  });
  afterEach(() => s.cleanup());

  const tool = (options?: ReadFileToolOptions) => createReadFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws, ...options });

  it("declares a JSON Schema with path required", () => {
    const t = tool();
    assert.equal(t.name, "read_file");
    const schema = t.parameters as { type?: string; required?: string[]; properties?: Record<string, unknown> };
    assert.equal(schema.type, "object");
    assert.deepEqual(schema.required, ["path"]);
    assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), ["limit", "offset", "path"]);
  });

  it("returns a whole small file without notes", async () => {
    s.write("src/config.ts", "export const port = 3000;\nexport const host = 'x';\n");
    const result = await tool().execute("c1", { path: "src/config.ts" });
    assert.equal(textOf(result), "export const port = 3000;\nexport const host = 'x';");
    assert.deepEqual(result.details, {
      path: "src/config.ts",
      startLine: 1,
      endLine: 2,
      totalLines: 2,
      truncated: false,
      bytes: 50,
      fileBytes: 51,
    });
  });

  it("reads a file without a final newline, and through an absolute path inside the root", async () => {
    s.write("a.txt", "one\ntwo");
    const result = await tool().execute("c1", { path: join(s.ws, "a.txt") });
    assert.equal(textOf(result), "one\ntwo");
    assert.equal(result.details.path, "a.txt");
    assert.equal(result.details.totalLines, 2);
  });

  it("honours offset and limit and says how to continue", async () => {
    s.write("ten.txt", numbered(10));
    const result = await tool().execute("c1", { path: "ten.txt", offset: 3, limit: 4 });
    assert.equal(textOf(result), "line 3\nline 4\nline 5\nline 6\n\n[Showing lines 3-6 of 10. Use offset=7 to continue.]");
    assert.equal(result.details.startLine, 3);
    assert.equal(result.details.endLine, 6);
    assert.equal(result.details.truncated, false);

    const rest = await tool().execute("c2", { path: "ten.txt", offset: 7 });
    assert.equal(textOf(rest), "line 7\nline 8\nline 9\nline 10");
    const tail = await tool().execute("c3", { path: "ten.txt", offset: 9, limit: 50 });
    assert.equal(textOf(tail), "line 9\nline 10");
  });

  it("truncates at 2000 lines by default, and the hinted offset continues exactly", async () => {
    s.write("big.txt", numbered(2500));
    const first = await tool().execute("c1", { path: "big.txt" });
    const text = textOf(first);
    assert.ok(text.endsWith("\n\n[Showing lines 1-2000 of 2500 (2000 line limit). Use offset=2001 to continue.]"));
    assert.equal(text.split("\n\n[")[0]?.split("\n").length, 2000);
    assert.deepEqual(
      { truncated: first.details.truncated, by: first.details.truncatedBy, end: first.details.endLine, total: first.details.totalLines },
      { truncated: true, by: "lines", end: 2000, total: 2500 },
    );
    const second = await tool().execute("c2", { path: "big.txt", offset: 2001 });
    const lines = textOf(second).split("\n");
    assert.equal(lines.length, 500);
    assert.equal(lines[0], "line 2001");
    assert.equal(second.details.truncated, false);
  });

  it("caps a limit above the line cap", async () => {
    s.write("big.txt", numbered(50));
    const result = await tool({ maxLines: 10 }).execute("c1", { path: "big.txt", limit: 30 });
    assert.equal(result.details.endLine, 10);
    assert.equal(result.details.truncatedBy, "lines");
    assert.match(textOf(result), /Use offset=11 to continue/);
  });

  it("truncates at 50 KB by default, on a line boundary, with a continuation hint", async () => {
    s.write("wide.txt", numbered(200, 999)); // 1000 bytes per line with its newline
    const result = await tool().execute("c1", { path: "wide.txt" });
    const [body = "", note = ""] = textOf(result).split("\n\n[");
    assert.ok(Buffer.byteLength(body) <= DEFAULT_READ_MAX_BYTES);
    assert.equal(result.details.bytes, Buffer.byteLength(body));
    const shown = body.split("\n").length;
    assert.equal(shown, 51);
    assert.equal(note, `Showing lines 1-51 of 200 (50 KB limit). Use offset=52 to continue.]`);
    assert.equal(result.details.truncatedBy, "bytes");
    const next = await tool().execute("c2", { path: "wide.txt", offset: 52 });
    assert.ok(textOf(next).startsWith("line 52x"));
  });

  it("never cuts a multi-byte character", async () => {
    s.write("u.txt", "é".repeat(10) + "\n" + "é".repeat(10) + "\n");
    const result = await tool({ maxBytes: 25 }).execute("c1", { path: "u.txt" });
    assert.equal(textOf(result), "é".repeat(10) + "\n\n[Showing lines 1-1 of 2 (25 B limit). Use offset=2 to continue.]");
    const long = await tool({ maxBytes: 5 }).execute("c1", { path: "u.txt" });
    assert.ok(textOf(long).startsWith("éé\n\n[Line 1 is 20 B, over the 5 B limit; showing only its start. Use offset=2"));
    assert.equal(long.details.bytes, 4);
    assert.equal(long.details.truncated, true);
  });

  it("shows CRLF files without carriage returns and drops a BOM", async () => {
    s.write("crlf.txt", "\uFEFFa\r\nb\r\n");
    const result = await tool().execute("c1", { path: "crlf.txt" });
    assert.equal(textOf(result), "a\nb");
  });

  it("says an empty file is empty", async () => {
    s.write("empty.txt", "");
    const result = await tool().execute("c1", { path: "empty.txt" });
    assert.equal(textOf(result), "empty.txt is empty.");
    assert.equal(result.details.totalLines, 0);
    assert.equal(result.details.endLine, 0);
    await rejection(() => tool().execute("c2", { path: "empty.txt", offset: 2 }));
  });

  it("refuses an offset past the end", async () => {
    s.write("three.txt", "1\n2\n3\n");
    const error = await rejection(() => tool().execute("c1", { path: "three.txt", offset: 4 }));
    assert.equal(error.message, "offset 4 is beyond the end of three.txt, which has 3 lines.");
  });

  it("refuses binary files", async () => {
    s.write("img.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]));
    const error = await rejection(() => tool().execute("c1", { path: "img.png" }));
    assert.equal(error.code, "binary");
    assert.match(error.message, /img\.png looks like a binary file/);
  });

  it("does not call a file binary for a NUL after the first 8 KB", async () => {
    s.write("late.txt", "a".repeat(9000) + "\0\n");
    const result = await tool().execute("c1", { path: "late.txt" });
    assert.equal(result.details.totalLines, 1);
  });

  it("reports missing files and directories clearly", async () => {
    assert.equal((await rejection(() => tool().execute("c1", { path: "nope.txt" }))).message, "File not found: nope.txt");
    assert.equal((await rejection(() => tool().execute("c1", { path: "./a/../b/c.txt" }))).message, "File not found: b/c.txt");
    mkdirSync(join(s.ws, "src"));
    const dir = await rejection(() => tool().execute("c1", { path: "src" }));
    assert.equal(dir.code, "not_a_file");
    assert.match(dir.message, /^src is a directory, not a file/);
    assert.match((await rejection(() => tool().execute("c1", { path: "." }))).message, /is a directory/);
  });

  it("refuses files above the size limit without reading them", async () => {
    s.write("huge.txt", "x".repeat(2000));
    const error = await rejection(() => tool({ maxFileBytes: 1000 }).execute("c1", { path: "huge.txt" }));
    assert.equal(error.code, "too_large");
  });

  it("refuses special files such as FIFOs", async function () {
    try {
      execFileSync("mkfifo", [join(s.ws, "pipe")]);
    } catch {
      this.skip();
    }
    const error = await rejection(() => tool().execute("c1", { path: "pipe" }));
    assert.equal(error.message, "pipe is not a regular file.");
  });

  it("refuses absolute paths when no root is given", async () => {
    s.write("a.txt", "a\n");
    const t = createReadFileTool(createNodeWorkspaceFs(s.ws));
    assert.equal(textOf(await t.execute("c1", { path: "a.txt" })), "a");
    assert.match((await rejection(() => t.execute("c1", { path: join(s.ws, "a.txt") }))).message, /absolute paths are not accepted/);
  });

  it("stops when aborted", async () => {
    s.write("a.txt", "a\n");
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(() => tool().execute("c1", { path: "a.txt" }, controller.signal));
    assert.equal(error.message, "Operation aborted");
  });
});
