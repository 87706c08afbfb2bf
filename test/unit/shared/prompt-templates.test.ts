// Prompt templates and skills in pi's format: front matter, arguments, expansion, hostile files.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${@:N} is pi's template syntax, written literally on purpose
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  expandTemplate,
  parseArguments,
  parseFrontMatter,
  parseSkill,
  parseTemplate,
  splitSlashCommand,
  templateName,
} from "../../../src/shared/prompt-templates";
import { PI_NODE20_HOOKS } from "../../support/pi-cli";

/** pi's own argument splitting and substitution (its dist file: the package does not export them). */
interface PiTemplates {
  parseCommandArgs(text: string): string[];
  substituteArgs(content: string, args: string[]): string;
}
async function loadPiTemplates(): Promise<PiTemplates> {
  await import(PI_NODE20_HOOKS);
  const file = pathToFileURL(resolve("node_modules/@earendil-works/pi-coding-agent/dist/core/prompt-templates.js")).href;
  return (await import(file)) as PiTemplates;
}

describe("prompt templates", () => {
  it("reads description and argument-hint from the front matter, the body after it", () => {
    const t = parseTemplate(
      "review",
      '---\ndescription: "Review a file"\nargument-hint: <file> [focus]\n---\n\nReview $1, focusing on ${@:2}.\n',
      "workspace",
      ".pi/prompts/review.md",
    );
    assert.equal(t.description, "Review a file");
    assert.equal(t.argumentHint, "<file> [focus]");
    assert.equal(t.body, "Review $1, focusing on ${@:2}.\n");
    assert.equal(t.problem, undefined);
  });

  it("without a description, the first non-empty line is the description", () => {
    assert.equal(parseTemplate("x", "\n\n  Explain this code simply.\nMore.", "user", "x.md").description, "Explain this code simply.");
  });

  it("expands $1, $@, $ARGUMENTS and ${@:N:L}; arguments are split as a shell would, and not expanded again", () => {
    const args = parseArguments(`src/a.ts "error handling" '$1 stays' last`);
    assert.deepEqual(args, ["src/a.ts", "error handling", "$1 stays", "last"]);
    assert.equal(expandTemplate("Review $1 for $2.", args), "Review src/a.ts for error handling.");
    assert.equal(expandTemplate("All: $@ | $ARGUMENTS", ["a", "b"]), "All: a b | a b");
    assert.equal(
      expandTemplate("Rest: ${@:2} | two: ${@:2:2} | none: $9.", args),
      "Rest: error handling $1 stays last | two: error handling $1 stays | none: .",
    );
    assert.deepEqual(parseArguments(`a "" b`), ["a", "", "b"]);
  });

  it("splits arguments and fills placeholders exactly as pi's CLI does (its own functions as the oracle)", async () => {
    const pi = await loadPiTemplates();
    const inputs = [
      `src/a.ts "error handling" '$1 stays' last`,
      "doesn't stop at the apostrophe",
      `"the \\"fast\\" path" next`,
      `'it\\'s' plain\\path`,
      `unclosed "quote here and more`,
      `a "" b`,
      "   spaced    out   ",
      "",
      `mid"quote"word 'x'y`,
    ];
    const bodies = [
      "Review $1 for $2; all: $@; again $ARGUMENTS.",
      "Focus on ${1:-correctness}; all ${@:-everything}; ${ARGUMENTS:-none}.",
      "Rest ${@:2} | two ${@:2:2} | from zero ${@:0} | none $9 | $10.",
      "Literal $ sign, $x and ${unknown} stay.",
    ];
    for (const input of inputs) {
      const ours = parseArguments(input);
      assert.deepEqual(ours, pi.parseCommandArgs(input), `arguments of ${JSON.stringify(input)}`);
      for (const body of bodies) assert.equal(expandTemplate(body, ours), pi.substituteArgs(body, ours), `${body} with ${JSON.stringify(input)}`);
    }
    assert.deepEqual(parseArguments("doesn't stop"), ["doesn't", "stop"]);
    assert.equal(expandTemplate("Focus on ${1:-correctness}.", []), "Focus on correctness.");
  });

  it("splits /name rest and names templates from their files", () => {
    assert.deepEqual(splitSlashCommand("/review src/a.ts  focus"), { name: "review", rest: "src/a.ts  focus" });
    assert.deepEqual(splitSlashCommand("/skill:lint"), { name: "skill:lint", rest: "" });
    assert.equal(splitSlashCommand("not a command"), undefined);
    assert.equal(templateName("review.md", false), "review");
    assert.equal(templateName("fix.prompt.md", true), "fix");
    assert.equal(templateName("notes.md", true), undefined);
    assert.equal(templateName("has space.md", false), undefined);
    assert.equal(templateName("new\nline.md", false), undefined);
  });

  it("a broken front matter is said, and the whole text is the body", () => {
    const t = parseTemplate("b", "---\ndescription: never closed\nDo the thing $1", "workspace", "b.md");
    assert.match(t.problem ?? "", /closing ---/);
    assert.ok(t.body.includes("Do the thing"));
    const fields = parseFrontMatter("---\n__proto__: x\nconstructor: y\n---\nbody").fields;
    assert.equal(Object.getPrototypeOf(fields), Object.prototype);
    assert.equal(fields.constructor, "y");
  });

  it("a description is one bounded line", () => {
    const t = parseTemplate("long", `---\ndescription: ${"word ".repeat(500)}\u0007bell\n---\nbody`, "user", "long.md");
    assert.ok(t.description.length <= 200);
    assert.ok(!t.description.includes("\u0007"));
  });

  it("skills need a name and a description", () => {
    const ok = parseSkill("lint", "---\nname: lint\ndescription: Lint the code the house way\n---\n# Lint\n", {
      source: "workspace",
      file: ".pi/skills/lint/SKILL.md",
      path: ".pi/skills/lint/SKILL.md",
    });
    assert.ok(ok.ok && ok.skill.name === "lint" && ok.skill.description === "Lint the code the house way");
    const none = parseSkill("x", "# no front matter", { source: "user", file: "~/.pi/agent/skills/x/SKILL.md" });
    assert.ok(!none.ok && /description/.test(none.reason));
    const bad = parseSkill("x", "---\nname: bad name!\ndescription: d\n---\n", { source: "user", file: "f" });
    assert.ok(!bad.ok);
  });
});
