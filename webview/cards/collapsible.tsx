// Small pieces the cards share: a collapsible section that remembers whether the user opened
// it (items are re-mounted when they move from the live part of the chat to a settled chunk),
// and a link that opens a workspace file through the host.
import type { ComponentChildren, JSX } from "preact";
import { post } from "../vscode-api";

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

export function rangeLabel(start: number, end?: number): string {
  return end !== undefined && end !== start ? `L${start}\u2013${end}` : `L${start}`;
}

export function FileLink(props: { path: string; line?: number; label?: string; class?: string }) {
  const where = props.line !== undefined ? `${props.path}:${props.line}` : props.path;
  return (
    // biome-ignore lint/a11y/useValidAnchor: it navigates (the host opens the file in the editor), so it is a link for screen readers; the webview has no URL of its own for it.
    <a
      href="#"
      class={`file-link ${props.class ?? ""}`}
      title={`Open ${where}`}
      onClick={(e) => {
        e.preventDefault();
        post(props.line !== undefined ? { type: "editor/openFile", path: props.path, line: props.line } : { type: "editor/openFile", path: props.path });
      }}
    >
      {props.label ?? props.path}
    </a>
  );
}
