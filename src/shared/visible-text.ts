// Characters a reader cannot see, made visible: bidi controls (U+202E turns the rest of a line
// around), zero-width and other format characters, line and paragraph separators, control
// characters other than new line and tab. Where the user approves what runs (the cards, the
// Run in terminal question), each is shown as its escape (`\u202E`), so what is read is what
// runs, in order, with nothing hidden or reordered.

/** What a reader cannot see or that reorders the text around it (the path guard's list, plus control characters). */
export const HIDDEN_CHARS = /\p{Cf}|\p{Zl}|\p{Zp}|\p{Variation_Selector}|\u034f|[\u115f\u1160\u3164\uffa0]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

/** `\u202E`, `\u{E0041}`: a character's escape, as JavaScript and JSON write it. */
export function escapeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}

/** The text with each hidden character written as its escape: for labels, titles and dialogs. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN_CHARS, escapeOf);
}
