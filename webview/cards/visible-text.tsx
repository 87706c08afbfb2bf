// Text an approval card shows exactly as it runs, with the characters a reader cannot see made
// visible: bidi controls (U+202E turns the rest of a line around), zero-width and other format
// characters, line and paragraph separators, control characters other than new line and tab. Each
// is shown as its escape (`\u202E`) in a marked span, so what the user reads is what runs, in
// order, with nothing hidden or reordered.
import { Fragment } from "preact";

/** What a reader cannot see or that reorders the text around it (the path guard's list, plus control characters). */
const HIDDEN_CHARS = /\p{Cf}|\p{Zl}|\p{Zp}|\p{Variation_Selector}|\u034f|[\u115f\u1160\u3164\uffa0]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

/** `\u202E`, `\u{E0041}`: a character's escape, as JavaScript and JSON write it. */
function escapeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}

/** The text with each hidden character written as its escape: for labels and titles. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN_CHARS, escapeOf);
}

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
