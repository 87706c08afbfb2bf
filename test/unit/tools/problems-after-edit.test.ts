// Problems after an edit: the real edit_file over a temp workspace, wrapped; the "language
// server" is a tiny linter over the file as it is on disk when asked (each line holding
// `undefinedName` is an error), so the report follows what the edit really wrote.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createEditFileTool, createNodeWorkspaceFs } from "../../../src/core/tools";
import {
  formatProblems,
  MAX_REPORTED_PROBLEMS,
  newProblems,
  withProblemsAfterEdit,
  type Problem,
  type ProblemsWatcher,
} from "../../../src/core/tools/problems-after-edit";
import { makeSandbox, textOf, type Sandbox } from "./helpers";

function lint(text: string): Problem[] {
  return text
    .split("\n")
    .flatMap((line, i) =>
      line.includes("undefinedName")
        ? [{ line: i + 1, column: line.indexOf("undefinedName") + 1, message: "Cannot find name 'undefinedName'.", source: "ts", code: "2304" }]
        : [],
    );
}

function linterWatcher(ws: string, log: string[]): ProblemsWatcher {
  return {
    watch(path) {
      log.push(`watch ${path}`);
      const read = () => lint(readFileSync(join(ws, path), "utf8"));
      return {
        before: read(),
        collect: async () => {
          log.push(`collect ${path}`);
          return read();
        },
        cancel: () => log.push(`cancel ${path}`),
      };
    },
  };
}

const p = (line: number, message: string, code = "1"): Problem => ({ line, column: 1, message, source: "ts", code });

describe("problems after an edit", () => {
  let s: Sandbox;
  beforeEach(() => {
    s = makeSandbox();
  });
  afterEach(() => s.cleanup());

  it("newProblems: an error that only moved is not new; a second copy of an old one is", () => {
    const before = [p(3, "A"), p(7, "B")];
    assert.deepEqual(newProblems(before, [p(5, "A"), p(9, "B")]), []);
    assert.deepEqual(newProblems(before, [p(5, "A"), p(6, "A"), p(9, "B")]), [p(6, "A")]);
    assert.deepEqual(newProblems(before, [p(9, "C"), p(2, "D")]), [p(2, "D"), p(9, "C")]);
    assert.deepEqual(newProblems(before, []), []);
  });

  it("formatProblems: file, line, message for each, and how many more there were", () => {
    const items = Array.from({ length: MAX_REPORTED_PROBLEMS }, (_, i) => p(i + 1, `bad ${i + 1}`));
    const text = formatProblems("src/a.ts", { items, total: 27 });
    assert.match(text, /reports 27 new errors in src\/a\.ts/);
    assert.match(text, /^src\/a\.ts:1:1 - ts 1: bad 1$/m);
    assert.match(text, /^src\/a\.ts:20:1 - ts 1: bad 20$/m);
    assert.match(text, /\(7 more not shown\)/);
  });

  it("an edit that introduces an error gets it back in its result and details; old errors are not repeated", async () => {
    s.write("src/a.ts", "const x = undefinedName;\nexport const port = 3000;\n");
    const log: string[] = [];
    const tool = withProblemsAfterEdit(createEditFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws }), linterWatcher(s.ws, log), { root: s.ws });
    const result = await tool.execute("e1", { path: "./src/a.ts", oldText: "port = 3000", newText: "port = undefinedName" });
    assert.deepEqual(log, ["watch src/a.ts", "collect src/a.ts"]);
    assert.match(textOf(result), /^Edited src\/a\.ts/);
    assert.match(textOf(result), /reports 1 new error in src\/a\.ts:\nsrc\/a\.ts:2:21 - ts 2304: Cannot find name 'undefinedName'\./);
    assert.doesNotMatch(textOf(result), /src\/a\.ts:1:/, "the error that was there before is not reported");
    assert.deepEqual(result.details.problems, {
      items: [{ line: 2, column: 21, message: "Cannot find name 'undefinedName'.", source: "ts", code: "2304" }],
      total: 1,
    });
  });

  it("at most 20 errors reach the model, with the count of the rest", async () => {
    s.write("src/b.ts", "let a = 1;\n");
    const tool = withProblemsAfterEdit(createEditFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws }), linterWatcher(s.ws, []), { root: s.ws });
    const many = Array.from({ length: 25 }, (_, i) => `let v${i} = undefinedName;`).join("\n");
    const result = await tool.execute("e2", { path: "src/b.ts", oldText: "let a = 1;", newText: many });
    assert.equal(result.details.problems?.items.length, 20);
    assert.equal(result.details.problems?.total, 25);
    assert.match(textOf(result), /\(5 more not shown\)/);
  });

  it("a clean edit adds nothing; a failed edit stops watching and fails as before", async () => {
    s.write("src/c.ts", "export const port = 3000;\n");
    const log: string[] = [];
    const tool = withProblemsAfterEdit(createEditFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws }), linterWatcher(s.ws, log), { root: s.ws });
    const clean = await tool.execute("e3", { path: "src/c.ts", oldText: "3000", newText: "8080" });
    assert.equal(textOf(clean), "Edited src/c.ts: 1 line changed (at line 1).");
    assert.equal(clean.details.problems, undefined);
    await assert.rejects(tool.execute("e4", { path: "src/c.ts", oldText: "no such text", newText: "x" }), /not found|does not occur|no match/i);
    assert.deepEqual(log.slice(-2), ["watch src/c.ts", "cancel src/c.ts"]);
  });
});
