import assert from "node:assert/strict";
import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyPatch, parsePatch } from "diff";
import {
  applyEdit,
  asEditFileParams,
  createEditFileTool,
  createNodeWorkspaceFs,
  type EditFileToolOptions,
  type EditProposal,
  proposeEdit,
} from "../../../src/core/tools";
import { makeSandbox, rejection, SECRET, textOf, type Sandbox } from "./helpers";

const CONFIG = "const host = 'localhost';\nexport const port = 3000;\nexport default { host, port };\n";

describe("edit_file", () => {
  let s: Sandbox;
  beforeEach(() => {
    s = makeSandbox();
  });
  afterEach(() => s.cleanup());

  const fs = () => createNodeWorkspaceFs(s.ws);
  const tool = (options?: EditFileToolOptions) => createEditFileTool(fs(), { root: s.ws, ...options });
  const text = (rel: string) => s.read(rel).toString("utf8");

  it("declares its schema and runs sequentially", () => {
    const t = tool();
    assert.equal(t.name, "edit_file");
    assert.equal(t.executionMode, "sequential");
    const schema = t.parameters as { required?: string[]; properties?: Record<string, unknown> };
    assert.deepEqual(schema.required, ["path"]);
    assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), ["edits", "newText", "oldText", "path"]);
  });

  it("replaces a single match and reports a short summary and the diff", async () => {
    s.write("src/config.ts", CONFIG);
    const result = await tool().execute("c1", { path: "src/config.ts", oldText: "port = 3000", newText: "port = 8080" });
    assert.equal(text("src/config.ts"), CONFIG.replace("3000", "8080"));
    assert.equal(textOf(result), "Edited src/config.ts: 1 line changed (at line 2).");
    assert.equal(result.details.path, "src/config.ts");
    assert.equal(result.details.additions, 1);
    assert.equal(result.details.deletions, 1);
    assert.equal(result.details.firstChangedLine, 2);
    assert.equal(result.details.hunks.length, 1);
    assert.ok(result.details.diff.startsWith("--- a/src/config.ts\n+++ b/src/config.ts\n@@ -1,3 +1,3 @@\n"));
    assert.ok(result.details.diff.includes("\n-export const port = 3000;\n+export const port = 8080;\n"));
  });

  it("gives a diff that parses back and applies to the original to give the new text", async () => {
    const original = Array.from({ length: 40 }, (_, i) => `row ${i}`).join("\n") + "\n";
    s.write("rows.txt", original);
    const result = await tool().execute("c1", { path: "rows.txt", oldText: "row 10\nrow 11\nrow 12\n", newText: "ten\n" });
    const patches = parsePatch(result.details.diff);
    assert.equal(patches.length, 1);
    const [patch] = patches;
    assert.ok(patch);
    assert.equal(patch.oldFileName, "a/rows.txt");
    assert.equal(patch.newFileName, "b/rows.txt");
    assert.deepEqual(patch.hunks, result.details.hunks);
    assert.equal(applyPatch(original, patch), text("rows.txt"));
    assert.equal(result.details.deletions, 3);
    assert.equal(result.details.additions, 1);
    assert.equal(textOf(result), "Edited rows.txt: 3 lines replaced by 1 (at line 11).");
  });

  it("summarizes pure additions and removals, and files without a final newline", async () => {
    s.write("a.txt", "a\nb\nc");
    const removed = await tool().execute("c1", { path: "a.txt", oldText: "b\n", newText: "" });
    assert.equal(text("a.txt"), "a\nc");
    assert.equal(textOf(removed), "Edited a.txt: 1 line removed (at line 2).");
    const added = await tool().execute("c2", { path: "a.txt", oldText: "c", newText: "c\nd\ne" });
    assert.equal(text("a.txt"), "a\nc\nd\ne");
    assert.equal(applyPatch("a\nc", parsePatch(added.details.diff)[0] ?? ""), "a\nc\nd\ne");
  });

  it("refuses when oldText is not found, and points at the most similar line", async () => {
    s.write("src/config.ts", CONFIG);
    const error = await rejection(() => tool().execute("c1", { path: "src/config.ts", oldText: "port = 4000", newText: "x" }));
    assert.equal(error.code, "no_match");
    assert.match(error.message, /not found in src\/config\.ts/);
    assert.match(error.message, /most similar lines of the file:\n2: export const port = 3000;\n/);
    assert.match(error.message, /Read the file/);
    assert.equal(text("src/config.ts"), CONFIG);
  });

  it("refuses when oldText matches twice, with the count", async () => {
    s.write("dup.ts", "let a = 1;\nlet b = 1;\n");
    const error = await rejection(() => tool().execute("c1", { path: "dup.ts", oldText: " = 1;", newText: " = 2;" }));
    assert.equal(error.code, "ambiguous_match");
    assert.match(error.message, /occurs 2 times in dup\.ts/);
    assert.match(error.message, /more of the surrounding lines/);
    assert.equal(text("dup.ts"), "let a = 1;\nlet b = 1;\n");
  });

  it("counts overlapping matches as ambiguous", async () => {
    s.write("aaa.txt", "aaa");
    const error = await rejection(() => tool().execute("c1", { path: "aaa.txt", oldText: "aa", newText: "b" }));
    assert.match(error.message, /occurs 2 times/);
  });

  it("refuses an edit that changes nothing", async () => {
    s.write("a.txt", "same\n");
    const error = await rejection(() => tool().execute("c1", { path: "a.txt", oldText: "same", newText: "same" }));
    assert.equal(error.code, "no_change");
  });

  it("keeps CRLF line endings while matching text given with LF", async () => {
    s.write("win.txt", "first\r\nsecond\r\nthird\r\n");
    await tool().execute("c1", { path: "win.txt", oldText: "first\nsecond", newText: "one\ntwo\nthree" });
    assert.equal(text("win.txt"), "one\r\ntwo\r\nthree\r\nthird\r\n");
    await tool().execute("c2", { path: "win.txt", oldText: "three\r\nthird\r\n", newText: "3\r\n" });
    assert.equal(text("win.txt"), "one\r\ntwo\r\n3\r\n");
    await tool().execute("c3", { path: "win.txt", oldText: "two", newText: "2\nand a half" });
    assert.equal(text("win.txt"), "one\r\n2\r\nand a half\r\n3\r\n");
  });

  it("gives CRLF files a diff over LF text that applies to the normalized original", async () => {
    const original = "a\r\nb\r\nc\r\n";
    s.write("win.txt", original);
    const result = await tool().execute("c1", { path: "win.txt", oldText: "b", newText: "B" });
    assert.ok(!result.details.diff.includes("\r"));
    const patch = parsePatch(result.details.diff)[0];
    assert.ok(patch);
    assert.equal(applyPatch(original.replace(/\r\n/g, "\n"), patch), text("win.txt").replace(/\r\n/g, "\n"));
  });

  it("leaves the line endings of untouched lines alone in a mixed file", async () => {
    s.write("mixed.txt", "a\r\nb\nc\r\nd\n");
    await tool().execute("c1", { path: "mixed.txt", oldText: "c\nd", newText: "C\nD" });
    assert.equal(text("mixed.txt"), "a\r\nb\nC\r\nD\n");
  });

  it("keeps a UTF-8 BOM", async () => {
    s.write("bom.cs", "\uFEFFclass A {}\r\n");
    await tool().execute("c1", { path: "bom.cs", oldText: "class A {}", newText: "class B {}" });
    const bytes = s.read("bom.cs");
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(bytes.subarray(3).toString("utf8"), "class B {}\r\n");
  });

  it("keeps every byte outside the match", async () => {
    const original = "α\tβ  \n\n\r\n  trailing   \n\u2028x\ny";
    s.write("exact.txt", original);
    await tool().execute("c1", { path: "exact.txt", oldText: "\u2028x", newText: "X" });
    assert.equal(text("exact.txt"), original.replace("\u2028x", "X"));
  });

  it("refuses files that are not UTF-8 or binary, and missing files", async () => {
    s.write("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    assert.equal((await rejection(() => tool().execute("c1", { path: "latin1.txt", oldText: "caf", newText: "x" }))).code, "not_utf8");
    assert.deepEqual([...s.read("latin1.txt")], [0x63, 0x61, 0x66, 0xe9, 0x0a]);
    s.write("bin", new Uint8Array([1, 0, 2]));
    assert.equal((await rejection(() => tool().execute("c1", { path: "bin", oldText: "x", newText: "y" }))).code, "binary");
    assert.equal((await rejection(() => tool().execute("c1", { path: "no.txt", oldText: "x", newText: "y" }))).message, "File not found: no.txt");
  });

  describe("propose / apply", () => {
    it("proposes without writing, then applies", async () => {
      s.write("src/config.ts", CONFIG);
      const proposal = await proposeEdit(fs(), s.ws, { path: join(s.ws, "src/config.ts"), oldText: "3000", newText: "8080" });
      assert.equal(text("src/config.ts"), CONFIG);
      assert.equal(proposal.path, "src/config.ts");
      assert.equal(proposal.lineEnding, "lf");
      assert.equal(proposal.bom, false);
      assert.match(proposal.details.diff, /\+export const port = 8080;/);
      assert.ok(Object.isFrozen(proposal));
      const result = await applyEdit(fs(), proposal);
      assert.equal(text("src/config.ts"), CONFIG.replace("3000", "8080"));
      assert.deepEqual(result.details, proposal.details);
    });

    it("refuses to apply when the file changed after the proposal, keeping the external change", async () => {
      s.write("src/config.ts", CONFIG);
      const proposal = await proposeEdit(fs(), s.ws, { path: "src/config.ts", oldText: "3000", newText: "8080" });
      const external = CONFIG.replace("localhost", "example.org");
      s.write("src/config.ts", external);
      const error = await rejection(() => applyEdit(fs(), proposal));
      assert.equal(error.code, "changed_since_proposal");
      assert.match(error.message, /changed after the edit was prepared, so nothing was written/);
      assert.equal(text("src/config.ts"), external);
    });

    it("refuses to apply when the file was deleted, or replaced by a symlink leading out", async () => {
      s.write("t.txt", "target\n");
      const proposal = await proposeEdit(fs(), s.ws, { path: "t.txt", oldText: "target", newText: "hit" });
      rmSync(join(s.ws, "t.txt"));
      assert.equal((await rejection(() => applyEdit(fs(), proposal))).code, "changed_since_proposal");
      symlinkSync(join(s.outside, "secret.txt"), join(s.ws, "t.txt"));
      const error = await rejection(() => applyEdit(fs(), proposal));
      assert.equal(error.code, "invalid_path");
      assert.equal(readFileSync(join(s.outside, "secret.txt"), "utf8"), `${SECRET}\n`);
    });

    it("lets execute apply the proposal the gate stored for that toolCallId", async () => {
      s.write("a.txt", "x = 1\n");
      const proposals = new Map<string, EditProposal>();
      const params = { path: "a.txt", oldText: "1", newText: "2" };
      proposals.set("call-7", await proposeEdit(fs(), s.ws, params));
      const result = await tool({ proposals, requireProposal: true }).execute("call-7", params);
      assert.equal(text("a.txt"), "x = 2\n");
      assert.equal(textOf(result), "Edited a.txt: 1 line changed (at line 1).");
      assert.equal(proposals.size, 0);
    });

    it("execute refuses a stored proposal when the file changed meanwhile", async () => {
      s.write("a.txt", "x = 1\n");
      const proposals = new Map<string, EditProposal>();
      const params = { path: "a.txt", oldText: "1", newText: "2" };
      proposals.set("call-8", await proposeEdit(fs(), s.ws, params));
      writeFileSync(join(s.ws, "a.txt"), "x = 1\ny = 1\n");
      const error = await rejection(() => tool({ proposals }).execute("call-8", params));
      assert.equal(error.code, "changed_since_proposal");
      assert.equal(text("a.txt"), "x = 1\ny = 1\n");
      assert.equal(proposals.size, 0);
    });

    it("execute refuses a stored proposal made for other parameters", async () => {
      s.write("a.txt", "x = 1\n");
      const proposals = new Map<string, EditProposal>();
      proposals.set("call-9", await proposeEdit(fs(), s.ws, { path: "a.txt", oldText: "1", newText: "2" }));
      const error = await rejection(() => tool({ proposals }).execute("call-9", { path: "a.txt", oldText: "1", newText: "3" }));
      assert.equal(error.code, "proposal_mismatch");
      assert.equal(text("a.txt"), "x = 1\n");
    });

    it("with requireProposal, execute refuses an edit the gate never proposed", async () => {
      s.write("a.txt", "x = 1\n");
      const error = await rejection(() => tool({ proposals: new Map(), requireProposal: true }).execute("c", { path: "a.txt", oldText: "1", newText: "2" }));
      assert.equal(error.code, "not_approved");
      assert.equal(text("a.txt"), "x = 1\n");
    });

    it("narrows gate args", () => {
      assert.deepEqual(asEditFileParams({ path: "a", oldText: "b", newText: "" }), { path: "a", oldText: "b", newText: "" });
      assert.equal(asEditFileParams({ path: "a", oldText: 1, newText: "" }), undefined);
      assert.equal(asEditFileParams(null), undefined);
    });
  });
});
