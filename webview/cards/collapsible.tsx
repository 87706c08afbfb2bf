// A card's collapsible section that remembers whether the user opened it (items are re-mounted
// when they move from the live part of the chat to a settled chunk).
import type { ComponentChildren, JSX } from "preact";

/** Open/closed per section id, for this chat; view state only, never sent anywhere. */
const openSections = new Map<string, boolean>();

export function forgetOpenSections(): void {
  openSections.clear();
}

export function Collapsible(props: { id: string; summary: ComponentChildren; class?: string; defaultOpen?: boolean; children: ComponentChildren }) {
  const open = openSections.get(props.id) ?? props.defaultOpen ?? false;
  return (
    <details class={props.class} open={open} onToggle={(e: JSX.TargetedEvent<HTMLDetailsElement>) => openSections.set(props.id, e.currentTarget.open)}>
      <summary>{props.summary}</summary>
      {props.children}
    </details>
  );
}
