// A link that opens a workspace file (at a line) through the host, and the `L3–7` label of a range.
import { post } from "../vscode-api";

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
