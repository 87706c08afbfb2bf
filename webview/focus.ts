// Where focus goes when an action takes away the element that had it (an answered approval,
// a chat switch, a closed popover): never to <body>, where the next Tab starts from the top.
// The composer and the approval cards mark themselves with data attributes; this module finds them.

/** Puts the focus in the composer's text box. */
export function focusComposer(): void {
  document.querySelector<HTMLTextAreaElement>("[data-composer-input]")?.focus();
}

/**
 * Focuses the Allow button of the first approval still waiting (other than `except`, the card
 * just answered) and scrolls it into view. False when none is waiting.
 */
export function focusPendingApproval(except?: string): boolean {
  const cards = Array.from(document.querySelectorAll<HTMLElement>('[data-approval="pending"]'));
  const card = cards.find((el) => el.dataset.item !== except);
  const allow = card?.querySelector<HTMLButtonElement>('button[data-decision="allow"]:not(:disabled)');
  if (!card || !allow) return false;
  card.scrollIntoView({ block: "nearest" });
  allow.focus();
  return true;
}

/** After an approval is answered: the next one waiting, else the composer. */
export function focusAfterDecision(answered: string): void {
  if (!focusPendingApproval(answered)) focusComposer();
}
