// The question part of a tool card whose call waits for the user: the reason box and Allow /
// Deny / Allow edits for this chat. Alt+A and Alt+D answer from anywhere in the card; after an
// answer the focus moves to the next approval waiting, or back to the composer.
import { useEffect, useState } from "preact/hooks";
import { focusAfterDecision } from "../focus";
import { post } from "../vscode-api";

type Decision = "allow" | "deny" | "allowForChat";

/**
 * Alt+A / Alt+D anywhere in a waiting card press its Allow / Deny button (matched on
 * KeyboardEvent.code, so they work with any keyboard layout). For the card's onKeyDown.
 */
export function onApprovalShortcut(e: KeyboardEvent): void {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const decision = e.code === "KeyA" ? "allow" : e.code === "KeyD" ? "deny" : null;
  if (decision === null || !(e.currentTarget instanceof HTMLElement)) return;
  const button = e.currentTarget.querySelector<HTMLButtonElement>(`button[data-decision="${decision}"]`);
  if (!button) return;
  e.preventDefault();
  e.stopPropagation();
  button.click();
}

/**
 * The decision a card has posted, cleared after 4 s: the host answers with a new item state, and
 * if it does not, the user can try again.
 */
export function useSentDecision<D extends string>(): [D | null, (decision: D | null) => void] {
  const [sent, setSent] = useState<D | null>(null);
  useEffect(() => {
    if (sent === null) return;
    const timer = setTimeout(() => setSent(null), 4000);
    return () => clearTimeout(timer);
  }, [sent]);
  return [sent, setSent];
}

/**
 * Posts the user's answer on a card: a denial carries the reason typed (when there is one), "Always
 * allow" on a command card the rule; one message shape for every card that asks.
 */
export function postDecision(
  toolCallId: string,
  decision: "allow" | "deny" | "allowForChat" | "allowAlways",
  reason: string,
  rule?: string,
  rejectedHunks?: readonly number[],
  editedHunks?: readonly number[],
): void {
  const why = reason.trim();
  // An edit allowed in part: the rejected hunks, and the reason, which is about them.
  const partial = decision !== "deny" && decision !== "allowAlways" && rejectedHunks !== undefined && rejectedHunks.length > 0;
  post({
    type: "approval/decide",
    toolCallId,
    decision,
    ...((decision === "deny" || partial) && why !== "" ? { reason: why } : {}),
    ...(decision === "allowAlways" && rule !== undefined ? { rule: rule.trim() } : {}),
    ...(partial ? { rejectedHunks: [...rejectedHunks] } : {}),
    // The hunks the card shows as the user's text: the host writes them only if its record agrees.
    ...(decision !== "deny" && decision !== "allowAlways" && editedHunks !== undefined && editedHunks.length > 0 ? { editedHunks: [...editedHunks] } : {}),
  });
}

/** The optional reason sent with a denial (or with rejected hunks: `rejecting`); Enter denies. */
export function DenyReasonInput(props: { value: string; onInput: (value: string) => void; onDeny: () => void; rejecting?: boolean }) {
  return (
    <input
      class="reason-input"
      type="text"
      maxLength={2000}
      placeholder={props.rejecting ? "Why reject these hunks? (optional, sent to Pi)" : "Why deny? (optional, sent to Pi)"}
      aria-label={props.rejecting ? "Reason for rejecting hunks (optional)" : "Reason for denying (optional)"}
      value={props.value}
      onInput={(e) => props.onInput(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === "Enter" && !e.isComposing) {
          e.preventDefault();
          props.onDeny();
        }
      }}
    />
  );
}

/** Allow (Alt+A) and Deny (Alt+D) of the command and MCP cards; disabled once a decision is sent. */
export function AllowDenyButtons(props: { sent: boolean; onDecide: (decision: "allow" | "deny") => void }) {
  return (
    <>
      <button
        type="button"
        class="button primary"
        data-decision="allow"
        aria-keyshortcuts="Alt+A"
        disabled={props.sent}
        onClick={() => props.onDecide("allow")}
      >
        Allow
      </button>
      <button
        type="button"
        class="button secondary"
        data-decision="deny"
        aria-keyshortcuts="Alt+D"
        disabled={props.sent}
        onClick={() => props.onDecide("deny")}
      >
        Deny
      </button>
    </>
  );
}

/**
 * An edit card's decision. With `hunks` (an edit of several hunks, some perhaps rejected on the
 * card), Allow writes only the accepted ones and says how many; with every hunk rejected only Deny is left.
 */
export function ApprovalForm({
  toolCallId,
  cardId,
  hunks,
}: {
  toolCallId: string;
  cardId: string;
  hunks?: { count: number; rejected: readonly number[]; edited?: readonly number[] };
}) {
  const [reason, setReason] = useState("");
  const [sent, setSent] = useSentDecision<Decision>();
  const rejected = hunks?.rejected ?? [];
  const noneLeft = hunks !== undefined && rejected.length >= hunks.count;

  const decide = (decision: Decision) => {
    if (sent !== null || (decision !== "deny" && noneLeft)) return;
    setSent(decision);
    postDecision(toolCallId, decision, reason, undefined, rejected, hunks?.edited);
    focusAfterDecision(cardId);
  };
  return (
    <fieldset class="approval-form">
      <legend class="sr-only">Your decision</legend>
      <DenyReasonInput value={reason} onInput={setReason} onDeny={() => decide("deny")} rejecting={rejected.length > 0} />
      <div class="approval-actions">
        <button
          type="button"
          class="button primary"
          data-decision="allow"
          aria-keyshortcuts="Alt+A"
          disabled={sent !== null || noneLeft}
          onClick={() => decide("allow")}
        >
          {hunks && rejected.length > 0 && !noneLeft ? `Allow ${hunks.count - rejected.length} of ${hunks.count} hunks` : "Allow"}{" "}
          <span class="kbd" aria-hidden="true">
            Alt+A
          </span>
        </button>
        <button type="button" class="button secondary" data-decision="deny" aria-keyshortcuts="Alt+D" disabled={sent !== null} onClick={() => decide("deny")}>
          Deny{" "}
          <span class="kbd" aria-hidden="true">
            Alt+D
          </span>
        </button>
        <button type="button" class="button secondary" data-decision="allowForChat" disabled={sent !== null || noneLeft} onClick={() => decide("allowForChat")}>
          Allow edits for this chat
        </button>
      </div>
    </fieldset>
  );
}
