// The earlier messages of a restored long chat, whose items the host has not sent: the button that
// stands for them (asking by itself as it comes near the view), and their arrival above what is
// on screen, which stays where it is (the anchor is an item: use-scroll-anchor.ts); asked from
// the keyboard, the focus goes to the first message the button was above.
import { useEffect, useLayoutEffect, useRef, useState, type MutableRef } from "preact/hooks";
import { groupDigits } from "../format";
import { Spinner } from "../icons";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import { itemElement } from "./use-feed-keys";

/** "Show N earlier messages" asks by itself when it comes within this distance of the view. */
const ASK_AHEAD = "1500px 0px";

/**
 * Stands for the earlier messages of a restored long chat, whose items the host has not sent:
 * they are asked for when this comes within ASK_AHEAD of the view, or with the button (keyboard).
 */
export function EarlierMessages(props: { count: number; root: { current: HTMLElement | null }; onAsk: (byKeyboard: boolean) => void }) {
  const marker = useRef<HTMLDivElement>(null);
  const [asked, setAsked] = useState(false);
  // The parent posts once per count; a press after the scroll asked still says it was the keyboard.
  const ask = (byKeyboard: boolean) => {
    setAsked(true);
    props.onAsk(byKeyboard);
  };
  useEffect(() => {
    const el = marker.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && ask(false), {
      root: props.root.current,
      rootMargin: ASK_AHEAD,
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const count = groupDigits(props.count);
  return (
    <div ref={marker} class="earlier-messages">
      <button type="button" class="text-button" aria-busy={asked} onClick={(e) => ask(e.detail === 0)}>
        {asked ? <Spinner /> : null}
        {asked ? `Loading ${count} earlier messages…` : `Show ${count} earlier messages`}
      </button>
    </div>
  );
}

/**
 * Asks for the earlier messages once per count, and when they arrived (the first key changed)
 * announces them and, if asked from the keyboard, focuses the message the button was above.
 */
export function useEarlierMessages(
  earlier: number | undefined,
  firstKey: string | undefined,
  pinned: MutableRef<string | null>,
  rowEl: (key: string) => HTMLElement | null,
): (byKeyboard: boolean) => void {
  const earlierAsk = useRef<{ byKeyboard: boolean; count: number } | null>(null);
  const arrived = useRef<{ key: string; focus: boolean; count: number } | null>(null);
  const previousFirst = useRef<string | undefined>(undefined);
  if (earlierAsk.current && earlier === undefined && firstKey !== undefined && previousFirst.current !== undefined && firstKey !== previousFirst.current) {
    arrived.current = { key: previousFirst.current, focus: earlierAsk.current.byKeyboard, count: earlierAsk.current.count };
    if (arrived.current.focus) pinned.current = previousFirst.current;
    earlierAsk.current = null;
  }
  previousFirst.current = firstKey;
  useLayoutEffect(() => {
    const came = arrived.current;
    if (!came) return;
    arrived.current = null;
    announce(`Showing ${groupDigits(came.count)} earlier messages`);
    const el = rowEl(came.key);
    if (came.focus && el) itemElement(el)?.focus({ preventScroll: true });
  });
  return (byKeyboard) => {
    const count = earlier ?? 0;
    const pending = earlierAsk.current?.count === count ? earlierAsk.current : null;
    earlierAsk.current = { byKeyboard: byKeyboard || (pending?.byKeyboard ?? false), count };
    if (!pending) post({ type: "chat/loadEarlier", count });
  };
}
