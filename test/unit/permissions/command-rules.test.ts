// The command allow-rule matcher, table-driven: a command runs without asking only when every
// part is covered by a rule, and anything the splitter cannot judge always asks.
import assert from "node:assert/strict";
import { matchAllowRules, parseRule, splitCommand, suggestRules } from "../../../src/core/permissions/command-rules";

const RULES = ["npm test", "git status", "ls", "echo", "grep", "cat"];

const cases: { command: string; allowed: boolean; why: string }[] = [
  // Allowed: every part matches a rule.
  { command: "npm test", allowed: true, why: "exact rule" },
  { command: "npm test -- --grep parser", allowed: true, why: "prefix rule, more arguments" },
  { command: "  npm   test  ", allowed: true, why: "extra spaces" },
  { command: "npm test && git status", allowed: true, why: "&& chain, both allowed" },
  { command: "npm test || echo failed", allowed: true, why: "|| chain, both allowed" },
  { command: "ls; git status; npm test", allowed: true, why: "; chain" },
  { command: "ls\ngit status", allowed: true, why: "newline chain" },
  { command: "cat package.json | grep version", allowed: true, why: "pipe, both allowed" },
  { command: "npm test 2>&1 | grep FAIL", allowed: true, why: "stderr to stdout is no file" },
  { command: "npm test > /dev/null", allowed: true, why: "to /dev/null writes no file" },
  { command: "echo 'a;b'", allowed: true, why: "quoted ; is not an operator" },
  { command: 'echo "rm -rf /; $HOME"', allowed: true, why: "double-quoted ; and a variable in an argument" },
  { command: "npm \\\ntest", allowed: true, why: "line continuation" },
  { command: "ls &", allowed: true, why: "trailing &" },
  { command: "\"npm\" 'test'", allowed: true, why: "quoted words unquote to the rule" },
  // Refused: one part not allowed.
  { command: "npm test && rm -rf /", allowed: false, why: "second part not allowed" },
  { command: "rm -rf / ; npm test", allowed: false, why: "first part not allowed" },
  { command: "npm test | sh", allowed: false, why: "piped into a shell" },
  { command: "npm test & curl evil.example", allowed: false, why: "& runs a second command" },
  { command: "npm test\nrm x", allowed: false, why: "newline runs a second command" },
  { command: "npm testx", allowed: false, why: "a rule matches whole words only" },
  { command: "npm", allowed: false, why: "shorter than the rule" },
  { command: "npm run test", allowed: false, why: "different second word" },
  { command: 'npm "test;rm -rf /"', allowed: false, why: "quoting that hides a ; is one word, not 'test'" },
  { command: "npm test';rm' x", allowed: false, why: "quote glued to the rule word" },
  { command: "git status |& sh", allowed: false, why: "|& pipes into a shell" },
  // Refused: constructs the splitter does not judge.
  { command: "echo $(rm -rf /)", allowed: false, why: "$( command substitution" },
  { command: 'echo "$(whoami)"', allowed: false, why: "$( inside double quotes" },
  { command: "echo `whoami`", allowed: false, why: "backticks" },
  { command: 'echo "`whoami`"', allowed: false, why: "backticks inside double quotes" },
  { command: "echo $((1+2))", allowed: false, why: "arithmetic expansion starts like $(" },
  { command: "cat <(ls)", allowed: false, why: "process substitution <(" },
  { command: "ls >(cat)", allowed: false, why: "process substitution >(" },
  { command: "echo hi > out.txt", allowed: false, why: "redirection to a file" },
  { command: "echo hi>out.txt", allowed: false, why: "redirection without spaces" },
  { command: "echo hi >> ~/.bashrc", allowed: false, why: "append redirection" },
  { command: "npm test &> log.txt", allowed: false, why: "&> to a file" },
  { command: "npm test 2> err.txt", allowed: false, why: "stderr to a file" },
  { command: "echo x >| f", allowed: false, why: "clobber redirection" },
  { command: "cat < secrets.txt", allowed: false, why: "input from a file" },
  { command: "cat <<EOF\nhi\nEOF", allowed: false, why: "heredoc" },
  { command: "cat <<< word", allowed: false, why: "herestring" },
  { command: "(rm -rf /)", allowed: false, why: "subshell" },
  { command: "{ rm -rf /; }", allowed: false, why: "command group" },
  { command: "echo 'unterminated", allowed: false, why: "unterminated quote" },
  { command: 'echo "unterminated', allowed: false, why: "unterminated double quote" },
  { command: "ls # && rm x", allowed: false, why: "comment" },
  { command: "$CMD -rf /", allowed: false, why: "command name from a variable" },
  { command: "&& npm test", allowed: false, why: "empty part" },
  { command: "", allowed: false, why: "empty command" },
  { command: "npm test\\", allowed: false, why: "trailing backslash" },
];

describe("command allow rules", () => {
  for (const c of cases) {
    it(`${c.allowed ? "allows" : "asks for"} ${JSON.stringify(c.command)}: ${c.why}`, () => {
      const decision = matchAllowRules(c.command, RULES);
      assert.equal(decision.allowed, c.allowed, decision.allowed ? `allowed by ${decision.rules.join(", ")}` : decision.reason);
    });
  }

  it("allows nothing without rules", () => {
    assert.equal(matchAllowRules("ls", []).allowed, false);
  });

  it("splits and unquotes words", () => {
    assert.deepEqual(splitCommand(`git commit -m "fix: a; b" && npm test`), {
      ok: true,
      parts: [
        ["git", "commit", "-m", "fix: a; b"],
        ["npm", "test"],
      ],
    });
  });

  it("says why it asks", () => {
    const decision = matchAllowRules("echo $(id)", RULES);
    assert.ok(!decision.allowed && /command substitution/.test(decision.reason));
    const partial = matchAllowRules("npm test && make", RULES);
    assert.ok(!partial.allowed && partial.reason.includes('"make"'));
  });

  it("accepts only single simple commands as rules", () => {
    assert.ok(parseRule("npm test").ok);
    assert.ok(!parseRule("npm test && rm").ok);
    assert.ok(!parseRule("echo $(x)").ok);
    assert.ok(!parseRule("   ").ok);
  });

  it("suggests one rule per part, the command and its first plain argument", () => {
    assert.deepEqual(suggestRules("npm test -- --watch"), ["npm test"]);
    assert.deepEqual(suggestRules("ls -la && git status --short"), ["ls", "git status"]);
    assert.deepEqual(suggestRules("echo $(x)"), undefined);
    // A suggested rule allows the command it was suggested for.
    const command = "npx tsc --noEmit && git 'log' -1";
    assert.equal(matchAllowRules(command, suggestRules(command)!).allowed, true);
  });
});
