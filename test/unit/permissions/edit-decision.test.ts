// Every combination of what the gate knows, and what it does: a table, no agent.
import assert from "node:assert/strict";
import { decideEdit, RESTRICTED_MODE_REASON, type ApprovalMode, type PathClass } from "../../../src/core/permissions";

const normal: PathClass = { kind: "normal" };
const prot: PathClass = { kind: "protected", pattern: "**/.vscode/**", secret: false, reason: ".vscode/tasks.json is a protected file" };
const secret: PathClass = { kind: "protected", pattern: "**/.env*", secret: true, reason: ".env is a protected file" };
const refused: PathClass = { kind: "refused", reason: ".git/config is inside a .git folder" };

type Expected = "apply" | "ask" | "ask, says why" | "refuse";

// path, approval mode, allowed for this chat, workspace trusted → expected
const table: [PathClass, ApprovalMode, boolean, boolean, Expected][] = [];
for (const mode of ["ask", "auto"] as const) {
  for (const forChat of [false, true]) {
    for (const trusted of [true, false]) {
      const skips = mode === "auto" || forChat;
      table.push([normal, mode, forChat, trusted, skips ? (trusted ? "apply" : "ask, says why") : "ask"]);
      table.push([prot, mode, forChat, trusted, "ask, says why"]);
      table.push([secret, mode, forChat, trusted, "ask, says why"]);
      table.push([refused, mode, forChat, trusted, "refuse"]);
    }
  }
}

describe("decideEdit", () => {
  for (const [path, approvalMode, allowedForChat, workspaceTrusted, expected] of table) {
    const label = `${path.kind}${path.kind === "protected" && path.secret ? " (secret)" : ""}, ${approvalMode}, ${allowedForChat ? "allowed for chat" : "not allowed for chat"}, ${workspaceTrusted ? "trusted" : "restricted"} → ${expected}`;
    it(label, () => {
      const result = decideEdit({ path, approvalMode, allowedForChat, workspaceTrusted });
      switch (expected) {
        case "apply":
          assert.deepEqual(result, { action: "apply" });
          break;
        case "ask":
          assert.deepEqual(result, { action: "ask" });
          break;
        case "ask, says why": {
          assert.equal(result.action, "ask");
          const why = result.action === "ask" ? result.why : undefined;
          assert.equal(why, path.kind === "protected" ? path.reason : RESTRICTED_MODE_REASON);
          break;
        }
        case "refuse":
          assert.deepEqual(result, { action: "refuse", reason: path.kind === "refused" ? path.reason : "" });
          break;
      }
    });
  }
});
