// Text an approval card shows exactly as it runs, each character a reader cannot see drawn in
// place as its escape in a marked span (src/shared/visible-text.ts says which and why).
import { Fragment } from "preact";
import { escapeOf, HIDDEN_CHARS } from "../../src/shared/visible-text";

export { visibleText } from "../../src/shared/visible-text";

/** The text, each hidden character in place as a marked escape the user can see. */
export function VisibleText({ text }: { text: string }) {
  const pieces: (string | { escape: string })[] = [];
  let last = 0;
  for (const match of text.matchAll(HIDDEN_CHARS)) {
    const at = match.index ?? 0;
    if (at > last) pieces.push(text.slice(last, at));
    pieces.push({ escape: escapeOf(match[0]) });
    last = at + match[0].length;
  }
  if (last < text.length) pieces.push(text.slice(last));
  return (
    <>
      {/* Keys are positions: the pieces of one text, in order, that never move. */}
      {pieces.map((piece, i) =>
        typeof piece === "string" ? (
          <Fragment key={i}>{piece}</Fragment>
        ) : (
          <span key={i} class="hidden-char" title={`Invisible character ${piece.escape.replace("\\u", "U+")}`}>
            {piece.escape}
          </span>
        ),
      )}
    </>
  );
}
