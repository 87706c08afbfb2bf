// A proposed plan (propose_plan) on its card: the Markdown as the model wrote it, drawn through
// the one renderer (FinalMarkdown), and while it is the plan the chat may approve: *Approve and
// act*, *Edit in editor* (the approved text is then the editor's), *Comment on lines* (a comment
// on any line, then *Revise* sends them back: plan-comments.tsx), and a line saying that writing
// what to change below sends it back too. A plan answered since is history: no buttons.
import { createContext } from "preact";
import { useContext, useMemo } from "preact/hooks";
import type { AssistantBlock, ToolItem } from "../../src/shared/chat-items";
import { planOf } from "../../src/shared/plans";
import { ChecklistIcon, EditIcon } from "../icons";
import { FinalMarkdown } from "../markdown/rendered-cache";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import { PlanComments } from "./plan-comments";

/** The tool call id of the plan the chat may approve now (ChatState.planOffer): a context, so cards stay memoized on their items. */
export const PlanOfferContext = createContext<string | undefined>(undefined);

export function PlanCard({ item }: { item: ToolItem }) {
  const approvable = useContext(PlanOfferContext) === item.id;
  const plan = planOf(item.details);
  // One block object per plan text, so the renderer's cache keeps the drawn Markdown.
  const block = useMemo<AssistantBlock | undefined>(() => (plan === undefined ? undefined : { index: 0, type: "text", text: plan }), [plan]);
  const headingId = `plan-${item.id}`;
  if (!block) {
    return (
      <div class="item plan-card" data-item={item.id}>
        <ChecklistIcon /> {item.status === "error" ? `The plan could not be proposed: ${item.resultText ?? ""}` : "Writing the plan…"}
      </div>
    );
  }
  return (
    <section class="item plan-card" data-item={item.id} aria-labelledby={headingId}>
      <h3 id={headingId} class="plan-title">
        <ChecklistIcon /> Proposed plan
      </h3>
      <FinalMarkdown block={block} />
      {approvable && (
        <div class="plan-actions">
          <button
            type="button"
            class="button primary"
            onClick={() => {
              post({ type: "plan/approve", toolCallId: item.id });
              announce("Plan approved: act mode, Pi carries it out");
            }}
          >
            Approve and act
          </button>
          <button type="button" class="button secondary" onClick={() => post({ type: "plan/openInEditor", toolCallId: item.id })}>
            <EditIcon /> Edit in editor
          </button>
          <span class="plan-hint">Or comment on its lines, or write below what to change: Pi revises the plan.</span>
        </div>
      )}
      {approvable && <PlanComments toolCallId={item.id} plan={plan ?? ""} />}
    </section>
  );
}
