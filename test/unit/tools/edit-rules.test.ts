// edit_file's matching rules, one row each: exact first, then each fuzzy class, uniqueness after
// normalizing, only the matched region changing, CRLF, BOM, multi-edit against the original,
// overlap, empty list, atomic failure, and the hints a miss gives.
import assert from "node:assert/strict";
import { createEditFileTool, createNodeWorkspaceFs, type EditFileParams, type WorkspaceFileSystem } from "../../../src/core/tools";
import { makeSandbox, rejection, textOf, type Sandbox } from "./helpers";

const BOM = "\uFEFF";

interface Row {
  name: string;
  /** The file before the call (a string is written as UTF-8). */
  file: string;
  edit: Omit<EditFileParams, "path">;
  /** The whole file after the call, byte for byte. */
  after?: string;
  /** Or the error: its code and what its message must say; the file must then be unchanged. */
  error?: { code: string; message: RegExp };
  /** Something the success message must say. */
  summary?: RegExp;
}

const rows: Row[] = [
  // ---- exact, and exact before fuzzy ----
  { name: "exact match", file: "a\nb\nc\n", edit: { oldText: "b", newText: "B" }, after: "a\nB\nc\n" },
  {
    name: "an exact match is used as it is, with no note about fuzzy matching",
    file: "const x = 'exact';\nconst y = 'other';\n",
    edit: { oldText: "const x = 'exact';", newText: "const x = 'changed';" },
    after: "const x = 'changed';\nconst y = 'other';\n",
    summary: /^Edited f\.txt: 1 line changed \(at line 1\)\.$/,
  },
  // ---- each fuzzy class ----
  {
    name: "trailing whitespace in the file is ignored (and goes with the replaced lines)",
    file: "line one   \nline two  \nline three\n",
    edit: { oldText: "line one\nline two\n", newText: "replaced\n" },
    after: "replaced\nline three\n",
    summary: /oldText matched only after ignoring differences in trailing whitespace/,
  },
  {
    name: "trailing whitespace in oldText is ignored",
    file: "foo\nbar\nbaz\n",
    edit: { oldText: "foo  \nbar\t", newText: "x" },
    after: "x\nbaz\n",
  },
  {
    name: "curly single quotes equal straight ones; an untouched line keeps its curly quotes",
    file: "say(\u2018hi\u2019);\nkeep \u2018this\u2019\n",
    edit: { oldText: "say('hi');", newText: "say('yo');" },
    after: "say('yo');\nkeep \u2018this\u2019\n",
  },
  {
    name: "curly double quotes equal straight ones",
    file: "const m = \u201CHello\u201D;\n",
    edit: { oldText: 'const m = "Hello";', newText: 'const m = "Bye";' },
    after: 'const m = "Bye";\n',
  },
  {
    name: "straight quotes in the file match curly ones in oldText, and newText is written as given",
    file: "a 'b'\n",
    edit: { oldText: "a \u2019b\u2019", newText: "a \u201Cc\u201D" },
    after: "a \u201Cc\u201D\n",
  },
  {
    name: "Unicode dashes equal -",
    file: "range: 1\u20135\nbreak\u2014here\nminus \u2212 1\n",
    edit: { oldText: "range: 1-5\nbreak-here", newText: "range: 1-9\nbreak-there" },
    after: "range: 1-9\nbreak-there\nminus \u2212 1\n",
  },
  {
    name: "no-break, narrow no-break, thin and em spaces equal a space",
    file: "a\u00A0b\u202Fc\u2009d\u2003e\nkeep\u00A0me\n",
    edit: { oldText: "a b c d e", newText: "abcde" },
    after: "abcde\nkeep\u00A0me\n",
  },
  {
    name: "NFKC-equivalent characters are equal (full-width letters, a combining accent)",
    file: "\uFF21\uFF22\uFF23\uFF11\uFF12\uFF13\ncafe\u0301\nrest\n",
    edit: { oldText: "ABC123\ncaf\u00E9\n", newText: "XYZ\ncoffee\n" },
    after: "XYZ\ncoffee\nrest\n",
  },
  // ---- uniqueness ----
  {
    name: "two exact matches are ambiguous",
    file: "x = 1\nx = 1\n",
    edit: { oldText: "x = 1", newText: "x = 2" },
    error: { code: "ambiguous_match", message: /oldText occurs 2 times in f\.txt; it must occur exactly once/ },
  },
  {
    name: "an exact match that normalizes to two places is ambiguous",
    file: "say('x')\nsay(\u2018x\u2019)\n",
    edit: { oldText: "say('x')", newText: "bye" },
    error: { code: "ambiguous_match", message: /occurs 2 times in f\.txt \(counting places that differ only in trailing whitespace, quotes/ },
  },
  {
    name: "two fuzzy matches are ambiguous",
    file: "say(\u2018x\u2019)\nsay(\u201Bx\u2019)\n",
    edit: { oldText: "say('x')", newText: "say('y')" },
    error: { code: "ambiguous_match", message: /occurs 2 times/ },
  },
  // ---- only the matched region changes ----
  {
    name: "every line outside a fuzzy match keeps its exact bytes (trailing spaces, CRLF, curly quotes, dashes, NBSP)",
    file: "keep   \r\nold \u201Cvalue\u201D   \r\nkeep \u2018q\u2019 \u2014 x\u00A0y  \n",
    edit: { oldText: 'old "value"', newText: 'new "value"' },
    after: 'keep   \r\nnew "value"\r\nkeep \u2018q\u2019 \u2014 x\u00A0y  \n',
  },
  {
    name: "a match inside a line leaves the rest of the line alone",
    file: "let s = \u201Ca\u201D + \u201Cb\u201D;   \n",
    edit: { oldText: '"a"', newText: '"z"' },
    after: 'let s = "z" + \u201Cb\u201D;   \n',
  },
  // ---- line endings, BOM ----
  {
    name: "CRLF files: oldText with \\n matches, newText gets CRLF",
    file: "a\r\nb\r\nc\r\n",
    edit: { oldText: "a\nb", newText: "x\ny\nz" },
    after: "x\r\ny\r\nz\r\nc\r\n",
  },
  {
    name: "a UTF-8 BOM is kept",
    file: `${BOM}x = 1\ny = 2\n`,
    edit: { oldText: "x = 1", newText: "x = 3" },
    after: `${BOM}x = 3\ny = 2\n`,
  },
  {
    name: "a fuzzy match in a CRLF file with a BOM",
    file: `${BOM}a \u2018b\u2019  \r\nc\r\n`,
    edit: { oldText: "a 'b'\nc", newText: "d\ne" },
    after: `${BOM}d\r\ne\r\n`,
  },
  // ---- several edits in one call ----
  {
    name: "edits are matched against the file before the call, not after the earlier edits",
    file: "one\ntwo\nthree\n",
    edit: {
      edits: [
        { oldText: "one", newText: "two" },
        { oldText: "two", newText: "2" },
      ],
    },
    after: "two\n2\nthree\n",
    summary: /^Edited f\.txt: 2 edits, /,
  },
  {
    name: "edits given out of order apply at their places",
    file: "one\ntwo\nthree\n",
    edit: {
      edits: [
        { oldText: "three", newText: "3" },
        { oldText: "one", newText: "1" },
      ],
    },
    after: "1\ntwo\n3\n",
  },
  {
    name: "the single form and edits together",
    file: "a\nb\nc\n",
    edit: { oldText: "a", newText: "A", edits: [{ oldText: "c", newText: "C" }] },
    after: "A\nb\nC\n",
  },
  {
    name: "overlapping edits are an error",
    file: "one\ntwo\nthree\n",
    edit: {
      edits: [
        { oldText: "one\ntwo", newText: "x" },
        { oldText: "two\nthree", newText: "y" },
      ],
    },
    error: { code: "overlapping_edits", message: /edits\[0\]\.oldText and edits\[1\]\.oldText overlap \(both change line 2 of f\.txt\)/ },
  },
  {
    name: "an empty list is an error",
    file: "a\n",
    edit: { edits: [] },
    error: { code: "invalid_edit", message: /edits is empty/ },
  },
  {
    name: "no edit at all is an error",
    file: "a\n",
    edit: {},
    error: { code: "invalid_edit", message: /give oldText and newText, or edits/ },
  },
  {
    name: "oldText without newText is an error",
    file: "a\n",
    edit: { oldText: "a" },
    error: { code: "invalid_edit", message: /Give both oldText and newText/ },
  },
  {
    name: "an empty oldText in the list is an error",
    file: "a\n",
    edit: {
      edits: [
        { oldText: "a", newText: "b" },
        { oldText: "", newText: "c" },
      ],
    },
    error: { code: "invalid_edit", message: /edits\[1\]\.oldText is empty/ },
  },
  {
    name: "one edit that does not match fails the whole call (nothing written)",
    file: "one\ntwo\nthree\n",
    edit: {
      edits: [
        { oldText: "one", newText: "1" },
        { oldText: "four", newText: "4" },
      ],
    },
    error: { code: "no_match", message: /^edits\[1\]\.oldText was not found in f\.txt\./ },
  },
  {
    name: "one ambiguous edit fails the whole call",
    file: "x\ny\ny\n",
    edit: {
      edits: [
        { oldText: "x", newText: "1" },
        { oldText: "y", newText: "2" },
      ],
    },
    error: { code: "ambiguous_match", message: /^edits\[1\]\.oldText occurs 2 times/ },
  },
  {
    name: "an edit that changes nothing is an error",
    file: "same\n",
    edit: { oldText: "same", newText: "same" },
    error: { code: "no_change", message: /nothing to change/ },
  },
  // ---- the hints a miss gives ----
  {
    name: "a miss caused by indentation names the lines and the cause",
    file: "// head\nfunction f() {\n    return 1;\n}\n",
    edit: { oldText: "function f() {\n  return 1;\n}", newText: "x" },
    error: {
      code: "no_match",
      message:
        /Lines 2-4 of the file have the same text if whitespace is ignored \(indentation, spaces or line breaks differ\):\n2: function f\(\) \{\n3: {5}return 1;\n4: \}\n/,
    },
  },
  {
    name: "a miss caused by the kind of quotes names the line and the cause",
    file: "// head\nconst s = 'abc';\n",
    edit: { oldText: 'const s = "abc";', newText: "x" },
    error: { code: "no_match", message: /Line 2 of the file has the same text except for the kind of quotes/ },
  },
  {
    name: "a miss with neither cause lists the most similar lines with their numbers",
    file: "alpha\nconst timeout = 30;\nbeta\nconst timeouts = [30];\n",
    edit: { oldText: "const timeout = 60;", newText: "x" },
    error: { code: "no_match", message: /The most similar lines of the file:\n2: const timeout = 30;\n4: const timeouts = \[30\];\n/ },
  },
];

describe("edit_file rules (table)", () => {
  let s: Sandbox;
  beforeEach(() => {
    s = makeSandbox();
  });
  afterEach(() => s.cleanup());

  /** The node fs, counting writes: a call is one write or none. */
  function countingFs(): { fs: WorkspaceFileSystem; writes: () => number } {
    const inner = createNodeWorkspaceFs(s.ws);
    let writes = 0;
    return {
      fs: {
        ...inner,
        writeFile: async (p, d) => {
          writes++;
          return inner.writeFile(p, d);
        },
      },
      writes: () => writes,
    };
  }

  for (const row of rows) {
    it(row.name, async () => {
      s.write("f.txt", row.file);
      const before = s.read("f.txt");
      const { fs, writes } = countingFs();
      const tool = createEditFileTool(fs, { root: s.ws });
      const params = { path: "f.txt", ...row.edit } as EditFileParams;
      if (row.error) {
        const error = await rejection(() => tool.execute("c", params));
        assert.equal(error.code, row.error.code, error.message);
        assert.match(error.message, row.error.message);
        assert.ok(s.read("f.txt").equals(before), "the file must be byte-identical after a failed call");
        assert.equal(writes(), 0);
      } else {
        const result = await tool.execute("c", params);
        assert.equal(s.read("f.txt").toString("utf8"), row.after);
        assert.equal(writes(), 1, "one write per call");
        if (row.summary) assert.match(textOf(result), row.summary);
      }
    });
  }

  it("several edits give one diff with a hunk for each place", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    s.write("f.txt", `${lines.join("\n")}\n`);
    const tool = createEditFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws });
    const result = await tool.execute("c", {
      path: "f.txt",
      edits: [
        { oldText: "line 2\n", newText: "two\n" },
        { oldText: "line 25\n", newText: "" },
      ],
    });
    assert.equal(result.details.hunks.length, 2);
    assert.equal(result.details.additions, 1);
    assert.equal(result.details.deletions, 2);
    assert.match(result.details.diff, /^--- a\/f\.txt\n\+\+\+ b\/f\.txt\n@@ -1,5 \+1,5 @@\n/);
  });
});
