// The block Pi is writing: parsed at most once per animation frame; the blocks already closed are
// drawn in groups that skip re-rendering while they stay the same, and a long open block that is
// not markdown yet shows as plain text in pieces (only the last one changes as it grows).
import { Component } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { onNextFrame } from "../frame-pacing";
import { memo } from "../memo";
import { MarkdownStream } from "./markdown";

export function StreamingMarkdown({ text }: { text: string }) {
  const stream = useRef<MarkdownStream | null>(null);
  stream.current ??= new MarkdownStream();
  const [view, setView] = useState(() => stream.current!.update(text));
  const latest = useRef(text);
  const rendered = useRef(text);
  const cancel = useRef<(() => void) | null>(null);
  latest.current = text;

  useEffect(() => {
    if (rendered.current === text || cancel.current) return;
    // At most one parse per animation frame (or per 100 ms while frames are paused, as in a hidden view).
    cancel.current = onNextFrame(() => {
      cancel.current = null;
      rendered.current = latest.current;
      setView(stream.current!.update(latest.current));
    });
  }, [text]);
  useEffect(() => () => cancel.current?.(), []);

  const groups: string[][] = [];
  for (let i = 0; i < view.settled.length; i += SETTLED_GROUP) groups.push(view.settled.slice(i, i + SETTLED_GROUP));
  return (
    <div class="md">
      {groups.map((group, i) => (
        <SettledBlocks key={i} blocks={group} />
      ))}
      {view.open &&
        ("html" in view.open ? (
          <div class="md-block md-open" dangerouslySetInnerHTML={{ __html: view.open.html }} />
        ) : (
          <StreamingPlainText text={view.open.plain} />
        ))}
    </div>
  );
}

/** Settled blocks are drawn in groups, each skipped while its blocks are the same strings. */
const SETTLED_GROUP = 64;

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

class SettledBlocks extends Component<{ blocks: readonly string[] }> {
  override shouldComponentUpdate(next: { blocks: readonly string[] }): boolean {
    return !sameStrings(this.props.blocks, next.blocks);
  }
  override render() {
    return (
      <>
        {this.props.blocks.map((html, i) => (
          <div key={i} class="md-block" dangerouslySetInnerHTML={{ __html: html }} />
        ))}
      </>
    );
  }
}

/** Plain text of a long open block, in pieces that stay the same as it grows (only the last one changes). */
const PLAIN_PIECE = 4096;

function StreamingPlainText({ text }: { text: string }) {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + PLAIN_PIECE);
    if (end < text.length) {
      const newline = text.lastIndexOf("\n", end);
      if (newline > at) end = newline + 1;
    }
    pieces.push(text.slice(at, end));
    at = end;
  }
  return (
    <div class="md-plain">
      {pieces.map((piece, i) => (
        <PlainPiece key={i} text={piece} />
      ))}
    </div>
  );
}

const PlainPiece = memo(function PlainPiece({ text }: { text: string }) {
  return <span>{text}</span>;
});
