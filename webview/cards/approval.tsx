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
export function postDecision(toolCallId: string, decision: "allow" | "deny" | "allowForChat" | "allowAlways", reason: string, rule?: string): void {
  const why = reason.trim();
  post({
    type: "approval/decide",
    toolCallId,
    decision,
    ...(decision === "deny" && why !== "" ? { reason: why } : {}),
    ...(decision === "allowAlways" && rule !== undefined ? { rule: rule.trim() } : {}),
  });
}

/** The optional reason sent with a denial; Enter denies. */
export function DenyReasonInput(props: { value: string; onInput: (value: string) => void; onDeny: () => void }) {
  return (
    <input
      class="reason-input"
      type="text"
      maxLength={2000}
      placeholder="Why deny? (optional, sent to Pi)"
      aria-label="Reason for denying (optional)"
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

export function ApprovalForm({ toolCallId, cardId }: { toolCallId: string; cardId: string }) {
  const [reason, setReason] = useState("");
  const [sent, setSent] = useSentDecision<Decision>();

  const decide = (decision: Decision) => {
    if (sent !== null) return;
    setSent(decision);
    postDecision(toolCallId, decision, reason);
    focusAfterDecision(cardId);
  };
  return (
    <fieldset class="approval-form">
      <legend class="sr-only">Your decision</legend>
      <DenyReasonInput value={reason} onInput={setReason} onDeny={() => decide("deny")} />
      <div class="approval-actions">
        <button type="button" class="button primary" data-decision="allow" aria-keyshortcuts="Alt+A" disabled={sent !== null} onClick={() => decide("allow")}>
          Allow{" "}
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
        <button type="button" class="button secondary" data-decision="allowForChat" disabled={sent !== null} onClick={() => decide("allowForChat")}>
          Allow edits for this chat
        </button>
      </div>
    </fieldset>
  );
}
