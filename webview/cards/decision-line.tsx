// The line a decided card keeps: allowed or denied, by whom or by which rule, and the user's reason.
// One drawing for command and MCP cards; only the words around the rule differ.
import type { ComponentChildren } from "preact";
import type { ApprovalItem } from "../../src/shared/chat-items";
import { CheckIcon, CloseIcon } from "../icons";
import { VisibleText } from "./visible-text";

export function DecisionLine({ approval, ruleWords }: { approval: ApprovalItem; ruleWords: (rule: ComponentChildren) => ComponentChildren }) {
  const allowed = approval.state === "allowed";
  return (
    <p class={`command-decision approval-${approval.state}`}>
      {allowed ? <CheckIcon class="ok" /> : <CloseIcon class="bad" />} <span class="decision">{allowed ? "Allowed" : "Denied"}</span>
      {approval.rule ? (
        <>
          {" "}
          {ruleWords(
            <code>
              <VisibleText text={approval.rule} />
            </code>,
          )}
        </>
      ) : allowed ? (
        " by you"
      ) : null}
      {approval.reason ? <span class="approval-reason-inline">: {approval.reason}</span> : null}
    </p>
  );
}
