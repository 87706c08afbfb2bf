// Insert at cursor's two decisions: whether a block's language fits the file, and the line
// breaks that keep it on lines of its own.
import assert from "node:assert/strict";
import { languageFits, onOwnLines } from "../../../src/core/code-insert";

describe("languageFits", () => {
  const cases: [string | undefined, string, boolean][] = [
    ["ts", "typescript", true],
    ["tsx", "typescriptreact", true],
    ["typescript", "typescript", true],
    ["js", "javascript", true],
    ["json", "jsonc", true],
    ["json", "typescript", false],
    ["python", "python", true],
    ["bash", "shellscript", true],
    ["yaml", "yaml", true],
    ["rust", "rust", true],
    ["elixir", "elixir", true],
    ["elixir", "typescript", false],
    [undefined, "typescript", false],
    ["", "typescript", false],
    ["text", "plaintext", false],
  ];
  for (const [fence, id, fits] of cases) {
    it(`${fence ?? "(none)"} in ${id}: ${fits ? "fits" : "asks"}`, () => assert.equal(languageFits(fence, id), fits));
  }
});

describe("onOwnLines", () => {
  it("at the start of a line with text after it: a line break after the block", () => assert.equal(onOwnLines("a = 1", "", "import x;"), "a = 1\n"));
  it("mid-line: breaks before and after", () => assert.equal(onOwnLines("a = 1", "const x", " = 2;"), "\na = 1\n"));
  it("on an empty line: as it is", () => assert.equal(onOwnLines("a = 1", "  ", ""), "a = 1"));
  it("a block that ends with a line break needs no other", () => assert.equal(onOwnLines("a = 1\n", "", "rest"), "a = 1\n"));
});
