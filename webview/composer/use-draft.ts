// The composer's draft: its text and the `@` mentions taken in it, kept in the webview's own state
// (vscode.setState) so they survive the view being hidden, and whether the box shows a template it
// expanded (sent as it reads, never run as a command). Mention edits (mention-tokens.ts) reach the
// textarea through `apply`, one undoable step each; the box grows with the text (useFitHeight).
import { useLayoutEffect, useRef, useState, type MutableRef } from "preact/hooks";
import { mentionToken, type MentionRef } from "../../src/shared/mentions";
import { announce } from "../live-region";
import { loadUiState, saveUiState } from "../vscode-api";
import { applyEdit, insertMentions, liveMentions, type TakenMention, type TextEdit } from "./mention-tokens";

export function useDraft(input: MutableRef<HTMLTextAreaElement | null>, onChange: (text: string) => void) {
  const [text, setText] = useState(() => loadUiState().draft);
  // `@` mentions taken: each is its token in the text and what it names; one whose token left the text is gone.
  const [mentions, setMentions] = useState<readonly TakenMention[]>(() => loadUiState().mentions ?? []);
  /** The draft is a template the box expanded: it is sent as it reads (never run as a command). */
  const expanded = useRef(false);

  const change = (next: string, list: readonly TakenMention[] = mentions) => {
    const live = liveMentions(next, list);
    if (next.trim() === "") expanded.current = false;
    onChange(next);
    setText(next);
    if (live.length !== mentions.length || list !== mentions) setMentions(live);
    saveUiState({ draft: next, mentions: [...live] });
  };

  /**
   * Makes an edit in the textarea as one undoable step (execCommand keeps the undo stack; where it
   * fails the value is set), then takes the text with `list` as the mentions.
   */
  const apply = (edit: TextEdit, list: readonly TakenMention[] = mentions) => {
    const el = input.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(edit.start, edit.end);
    const done = edit.insert === "" ? document.execCommand("delete") : document.execCommand("insertText", false, edit.insert);
    if (!done) {
      el.value = applyEdit(el.value, edit);
      el.setSelectionRange(edit.start + edit.insert.length, edit.start + edit.insert.length);
    }
    change(el.value, list);
  };

  return {
    text,
    mentions,
    expanded,
    change,
    apply,
    /** The mentions whose token is in `current` (the textarea's value as it is sent). */
    live: (current: string) => liveMentions(current, mentions),
    /** Mentions `refs` in place of `range` (else the selection) and says so. */
    mention(refs: readonly MentionRef[], range?: { start: number; end: number }) {
      const el = input.current;
      if (!el || refs.length === 0) return;
      const start = range?.start ?? el.selectionStart ?? el.value.length;
      const end = range?.end ?? el.selectionEnd ?? start;
      const taken = insertMentions(el.value, start, end, refs, mentions);
      apply(taken.edit, taken.mentions);
      announce(`Mentioned ${refs.map((r) => mentionToken(r)).join(", ")}`);
    },
  };
}

export type Draft = ReturnType<typeof useDraft>;

const MAX_HEIGHT_PX = 220;

/**
 * Grows the box with the text up to a limit (a CSSOM property: allowed under the CSP). An empty
 * box's height is its placeholder's (Chromium counts it in scrollHeight): the longer hint while Pi
 * works takes two or three lines in a narrow sidebar, and is measured again when that resizes.
 */
export function useFitHeight(input: MutableRef<HTMLTextAreaElement | null>, text: string, placeholder: string) {
  useLayoutEffect(() => {
    const fitHeight = () => {
      const el = input.current;
      if (!el) return;
      el.style.height = "auto";
      el.style.height = `${Math.min(el.scrollHeight, MAX_HEIGHT_PX)}px`;
    };
    fitHeight();
    window.addEventListener("resize", fitHeight);
    return () => window.removeEventListener("resize", fitHeight);
  }, [text, placeholder]);
}
