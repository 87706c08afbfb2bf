// The composer's `@` mentions as text, without a DOM (and which `@` or `/` list the caret is in): each mention taken is its token in the draft
// plus what it names, and one whose token has left the text is gone. Every function here is pure
// over (text, caret, tokens) and answers with an edit (replace start..end with insert) that the
// composer applies to the textarea as one undoable step (use-draft.ts), and the mentions after it.
import { mentionToken, type MentionRef } from "../../src/shared/mentions";

export type TakenMention = { readonly token: string; readonly ref: MentionRef };

/** Replace `text.slice(start, end)` with `insert`. */
export type TextEdit = { readonly start: number; readonly end: number; readonly insert: string };

export type TokenEdit = { readonly edit: TextEdit; readonly mentions: readonly TakenMention[] };

/** The mentions whose token is still in the text. */
export function liveMentions(text: string, mentions: readonly TakenMention[]): readonly TakenMention[] {
  return mentions.filter((m) => text.includes(m.token));
}

/** The text after an edit. */
export function applyEdit(text: string, edit: TextEdit): string {
  return text.slice(0, edit.start) + edit.insert + text.slice(edit.end);
}

/** `mentions` with `refs` taken last (a token taken again moves to the end, never twice). */
function withTaken(mentions: readonly TakenMention[], refs: readonly MentionRef[]): readonly TakenMention[] {
  const tokens = refs.map((r) => mentionToken(r));
  return [...mentions.filter((m) => !tokens.includes(m.token)), ...refs.map((ref) => ({ token: mentionToken(ref), ref }))];
}

/**
 * Takes an option of the `@` / `/` list: the typed `@query` or `/query` (from `start` to the
 * caret) becomes the mention's token, or the command's `/name`, and a space.
 */
export function takeOption(
  caret: number,
  start: number,
  chosen: { readonly kind: "mention"; readonly ref: MentionRef } | { readonly kind: "command"; readonly name: string },
  mentions: readonly TakenMention[],
): TokenEdit {
  if (chosen.kind === "command") return { edit: { start, end: caret, insert: `/${chosen.name} ` }, mentions };
  return { edit: { start, end: caret, insert: `${mentionToken(chosen.ref)} ` }, mentions: withTaken(mentions, [chosen.ref]) };
}

/**
 * Puts the refs' tokens in place of start..end (a drop, a taken paste offer), spaced from the
 * words around them, and takes them.
 */
export function insertMentions(text: string, start: number, end: number, refs: readonly MentionRef[], mentions: readonly TakenMention[]): TokenEdit {
  const before = text.slice(0, start);
  const after = text.slice(end);
  const tokens = refs.map((r) => mentionToken(r));
  const insert = `${before === "" || /\s$/.test(before) ? "" : " "}${tokens.join(" ")}${/^\s/.test(after) ? "" : " "}`;
  return { edit: { start, end, insert }, mentions: withTaken(mentions, refs) };
}

/**
 * Backspace right after a mention's token (Delete right before it) deletes the whole token:
 * the range to delete, or undefined when the caret touches no token on that side.
 */
export function wholeTokenAt(text: string, caret: number, mentions: readonly TakenMention[], forward: boolean): TextEdit | undefined {
  for (const m of mentions) {
    const start = forward ? caret : caret - m.token.length;
    if (start >= 0 && text.slice(start, start + m.token.length) === m.token) return { start, end: start + m.token.length, insert: "" };
  }
  return undefined;
}

/** A chip's remove button: the token's first occurrence and the space after it leave the text. */
export function removeMention(text: string, token: string): TextEdit | undefined {
  const at = text.indexOf(token);
  if (at < 0) return undefined;
  const end = text[at + token.length] === " " ? at + token.length + 1 : at + token.length;
  return { start: at, end, insert: "" };
}

/** Where a pasted text still is: where it was pasted if unchanged there, else its first occurrence. */
export function pastedAt(text: string, pasted: { readonly text: string; readonly at: number }): number {
  return text.slice(pasted.at, pasted.at + pasted.text.length) === pasted.text ? pasted.at : text.indexOf(pasted.text);
}

/** Which list a typed `@query` or `/query` opens, where the typed part starts, and the query. */
export type ListAt = { readonly mode: "mention" | "command"; readonly start: number; readonly query: string };

/**
 * The list the caret is in: `/name` as the whole text so far (a command), or `@query` after a
 * space or at the start (a mention); else none.
 */
export function listAt(text: string, caret: number): ListAt | undefined {
  const before = text.slice(0, caret);
  const command = /^\/([\w.:-]*)$/.exec(before);
  if (command) return { mode: "command", start: 0, query: command[1]! };
  const mention = /(?:^|\s)@([^\s@]{0,200})$/.exec(before);
  if (mention) return { mode: "mention", start: caret - mention[1]!.length - 1, query: mention[1]! };
  return undefined;
}
