// Where focus goes when an action takes away the element that had it (an answered approval,
// a chat switch, a closed popover, a removed chip, a Stop button once the run ends): never to
// <body>, where the next Tab starts from the top. Two parts:
// - explicit moves for actions whose next step is known (focusAfterDecision after Allow/Deny);
// - keepFocus(), the rule for everything else, implemented once: when the focused control is
//   removed, disabled or hidden, the focus moves to the nearest sensible control — the same
//   card's (or group's) next control, else the composer if it was in the composer, else the
//   next waiting approval, else the composer.
// The composer, the approval cards, the cards (data-item) and smaller groups (data-focus-scope)
// mark themselves with data attributes; this module finds them.

function composerInput(): HTMLTextAreaElement | null {
  return document.querySelector<HTMLTextAreaElement>("[data-composer-input]");
}

/** Puts the focus in the composer's text box. */
export function focusComposer(): void {
  composerInput()?.focus();
}

/**
 * Focuses the Allow button of the first approval still waiting (other than `except`, the card
 * just answered) and scrolls it into view. False when none is waiting.
 */
export function focusPendingApproval(except?: string): boolean {
  // A card already answered (its buttons off until the host says so) is not waiting for the user.
  const cards = Array.from(document.querySelectorAll<HTMLElement>('[data-approval="pending"]'));
  const card = cards.find((el) => el.dataset.item !== except && el.querySelector('button[data-decision="allow"]:not(:disabled)') !== null);
  const allow = card?.querySelector<HTMLButtonElement>('button[data-decision="allow"]:not(:disabled)');
  if (!card || !allow) return false;
  card.scrollIntoView({ block: "nearest" });
  allow.focus();
  return true;
}

/** Presses Allow or Deny on the first card waiting for the user; false when none waits. */
export function decideFirstPending(decision: "allow" | "deny"): boolean {
  const cards = Array.from(document.querySelectorAll<HTMLElement>('[data-approval="pending"]'));
  for (const card of cards) {
    const button = card.querySelector<HTMLButtonElement>(`button[data-decision="${decision}"]:not(:disabled)`);
    if (!button) continue;
    card.scrollIntoView({ block: "nearest" });
    button.click();
    return true;
  }
  return false;
}

/** After an approval is answered: the next one waiting, else the composer. */
export function focusAfterDecision(answered: string): void {
  if (!focusPendingApproval(answered)) focusComposer();
}

const CONTROLS = 'button, a[href], input:not([type="hidden"]), textarea, select, summary, [tabindex]:not([tabindex="-1"])';
const SCOPES = "[data-focus-scope], [data-item]";

/** A control the keyboard can reach now: connected, enabled, drawn, not hidden from it. */
function reachable(el: Element): el is HTMLElement {
  if (!(el instanceof HTMLElement) || !el.isConnected || el.matches(":disabled")) return false;
  if (el.closest('[inert], [aria-hidden="true"]')) return false;
  if (el.tabIndex < 0 && !el.matches(CONTROLS)) return false;
  return el.getClientRects().length > 0;
}

function controlsIn(scope: Element): HTMLElement[] {
  return Array.from(scope.querySelectorAll(CONTROLS)).filter(reachable);
}

/** The selector that finds a scope again after a redraw: its own mark inside its card's. */
function scopeSelector(scope: Element): string {
  const own = scopeMark(scope);
  const card = scope.parentElement?.closest("[data-item]");
  return card && card !== scope ? `${scopeMark(card)} ${own}` : own;
}

function scopeMark(el: Element): string {
  const html = el as HTMLElement;
  if (html.dataset.focusScope !== undefined) return `[data-focus-scope="${CSS.escape(html.dataset.focusScope)}"]`;
  return `[data-item="${CSS.escape(html.dataset.item ?? "")}"]`;
}

/** What a control says (its name), to find the same control again in a redrawn group. */
function controlName(el: Element): string {
  return el.getAttribute("aria-label") ?? el.textContent?.trim() ?? "";
}

/** What is known of the focused control, taken when it got the focus (it may be gone when needed). */
interface Held {
  /**
   * Weakly: the control may be gone with its chat (New Chat), and a memory of where the focus was
   * must not keep a whole chat's DOM alive (chat-switch-memory.test.ts reads the heap).
   */
  ref: WeakRef<HTMLElement>;
  /** The scopes around it, innermost first: selector and the control's index among its controls. */
  scopes: { selector: string; index: number }[];
  name: string;
  inComposer: boolean;
}

function hold(el: HTMLElement): Held {
  const scopes: Held["scopes"] = [];
  for (let scope = el.closest(SCOPES); scope; scope = scope.parentElement?.closest(SCOPES) ?? null) {
    scopes.push({ selector: scopeSelector(scope), index: controlsIn(scope).indexOf(el) });
  }
  return { ref: new WeakRef(el), scopes, name: controlName(el), inComposer: el.closest("[data-composer]") !== null };
}

/** A redraw may take a moment to bring a group back (a branch switch: the old messages go, then the new come). */
const REDRAW_GRACE_MS = 300;

/**
 * Installs the rule on the document (once, at start). Returns the uninstaller. The check runs
 * after every DOM change (a MutationObserver: removed nodes, `disabled`, `hidden`, classes).
 */
export function keepFocus(root: Node = document.body): () => void {
  let held: Held | null = null;
  let lostAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The composer's text when it took the keys while a group redraws (see check): typed since, it keeps them. */
  let parked: string | null = null;

  const onFocusIn = (e: FocusEvent) => {
    if (parked !== null) return; // our own move to the composer, while the group redraws
    if (e.target instanceof HTMLElement && e.target !== document.body) {
      held = hold(e.target);
      lostAt = 0;
    }
  };
  // A deliberate blur (a click on text, Escape out of a field) leaves the control as it was: forget it.
  const onFocusOut = (e: FocusEvent) => {
    const left = e.target;
    queueMicrotask(() => {
      if (held?.ref.deref() === left && reachable(left as Element) && document.activeElement === document.body) held = null;
    });
  };

  // The mouse is about to put the focus where it clicks (or nowhere, on text): not ours to move.
  const onPointerDown = (e: PointerEvent) => {
    if (held && !(e.target instanceof Node && held.ref.deref()?.contains(e.target))) {
      held = null;
      parked = null;
    }
  };

  const check = () => {
    clearTimeout(timer);
    const h = held;
    if (!h) {
      parked = null;
      return;
    }
    const active = document.activeElement;
    // The common case, checked without layout: it still has the focus and can keep it.
    const el = h.ref.deref();
    if (el && active === el && el.isConnected && !el.matches(":disabled")) return;
    if (el && reachable(el)) {
      lostAt = 0;
      return;
    }
    // The user (or an explicit move) already put the focus somewhere: the composer we parked the
    // keys in counts as theirs once they typed there.
    const inParking = parked !== null && active === composerInput() && composerInput()?.value === parked;
    if (active !== null && active !== document.body && active !== el && !inParking) {
      held = null;
      parked = null;
      return;
    }
    lostAt ||= performance.now();
    // A group in the chat may be redrawn in steps (a branch switch, a stopped command's card):
    // for a moment only its own group will do; after that, any group around it.
    const waited = performance.now() - lostAt;
    const grace = !h.inComposer && h.scopes.length > 0 && waited < REDRAW_GRACE_MS;
    const target = inScope(h, grace ? 1 : h.scopes.length);
    if (target) return move(target);
    if (grace) {
      // Meanwhile the keys go to the composer, never to <body>.
      if (parked === null) {
        parked = composerInput()?.value ?? null;
        focusComposer();
      }
      timer = setTimeout(check, REDRAW_GRACE_MS - waited);
      return;
    }
    held = null;
    parked = null;
    if (h.inComposer) focusComposer();
    else if (!focusPendingApproval()) focusComposer();
  };

  const move = (target: HTMLElement) => {
    held = null;
    parked = null;
    target.focus({ preventScroll: false });
  };

  const observer = new MutationObserver(check);
  observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ["disabled", "hidden", "class", "open", "inert"] });
  document.addEventListener("focusin", onFocusIn);
  document.addEventListener("focusout", onFocusOut);
  document.addEventListener("pointerdown", onPointerDown, true);
  return () => {
    observer.disconnect();
    clearTimeout(timer);
    document.removeEventListener("focusin", onFocusIn);
    document.removeEventListener("focusout", onFocusOut);
    document.removeEventListener("pointerdown", onPointerDown, true);
  };
}

/**
 * The nearest control in the lost one's groups (the `depth` innermost, innermost first): the same
 * control redrawn, else the one now at its place, else the last.
 */
function inScope(h: Held, depth: number): HTMLElement | undefined {
  for (const { selector, index } of h.scopes.slice(0, depth)) {
    const scope = document.querySelector(selector);
    if (!scope) continue;
    const controls = controlsIn(scope);
    if (controls.length === 0) continue;
    const same = controls.find((c) => controlName(c) === h.name);
    return same ?? controls[Math.max(0, index)] ?? controls[controls.length - 1];
  }
  return undefined;
}

/** The controls in `root` that Tab stops at, in document order. */
export function tabbables(root: Element): HTMLElement[] {
  return controlsIn(root).filter((el) => el.tabIndex >= 0);
}
