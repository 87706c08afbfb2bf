// The composer's keys as one table, without a DOM: which action a key press in the message box
// means, given whether the `@` / `/` list is open, whether Pi is running and whether a mention's
// token touches the caret. The composer does the action and prevents the browser's default;
// null leaves the key to the textarea (typing, a new line with Shift+Enter, caret moves). The
// placeholder and the hint under the box say in words what the keys will do.

export type ComposerKey = {
  readonly key: string;
  readonly shift?: boolean;
  readonly alt?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  /** An input method is composing: Enter and Escape belong to it. */
  readonly composing?: boolean;
};

export type ComposerKeyState = {
  /** The `@` / `/` list is shown. */
  readonly listOpen: boolean;
  /** The list has at least one option. */
  readonly hasOptions: boolean;
  /** Pi is writing a reply. */
  readonly running: boolean;
  /** A taken mention's token ends at the caret (Backspace would take it whole). */
  readonly mentionBefore: boolean;
  /** A taken mention's token starts at the caret (Delete would take it whole). */
  readonly mentionAfter: boolean;
};

export type ComposerKeyAction =
  /** Escape on the list: it closes and stays closed until the text changes; the text stays, a run goes on. */
  | "closeList"
  | "nextOption"
  | "previousOption"
  /** Enter or Tab on the list: the active option replaces the typed `@query` / `/query`. */
  | "take"
  /** Backspace / Delete at a mention's token: the whole token goes, as one undoable edit. */
  | "deleteMentionBefore"
  | "deleteMentionAfter"
  /** Enter while idle. */
  | "send"
  /** Enter while Pi writes: sent when the reply ends. */
  | "followUp"
  /** Alt+Enter while Pi writes: sent after the current tool call. */
  | "steer"
  /** Escape while Pi writes (and no list open). */
  | "stop";

export function keyAction(k: ComposerKey, s: ComposerKeyState): ComposerKeyAction | null {
  return (s.listOpen && !k.composing ? listKey(k, s) : null) ?? mentionKey(k, s) ?? runKey(k, s);
}

/** Keys the open `@` / `/` list takes (not while an input method composes). */
function listKey(k: ComposerKey, s: ComposerKeyState): ComposerKeyAction | null {
  if (k.key === "Escape") return "closeList";
  if (!s.hasOptions) return null;
  if (k.key === "ArrowDown") return "nextOption";
  if (k.key === "ArrowUp") return "previousOption";
  return (k.key === "Enter" || k.key === "Tab") && !k.shift ? "take" : null;
}

/** Backspace / Delete at a mention's token, without a modifier (Ctrl+Backspace stays a word delete). */
function mentionKey(k: ComposerKey, s: ComposerKeyState): ComposerKeyAction | null {
  if (k.alt || k.ctrl || k.meta) return null;
  if (k.key === "Backspace" && s.mentionBefore) return "deleteMentionBefore";
  return k.key === "Delete" && s.mentionAfter ? "deleteMentionAfter" : null;
}

/** Enter sends, or queues while Pi writes (Alt: steers); Escape stops a run. */
function runKey(k: ComposerKey, s: ComposerKeyState): ComposerKeyAction | null {
  if (k.key === "Enter" && !k.shift && !k.composing) {
    if (!s.running) return "send";
    return k.alt ? "steer" : "followUp";
  }
  return k.key === "Escape" && s.running ? "stop" : null;
}

/** The box's placeholder: what the keys do now. */
export function placeholderFor(readOnly: boolean, running: boolean): string {
  if (readOnly) return "Open in another window: read-only here";
  return running ? "Pi is working… Enter queues a follow-up, Alt+Enter steers, Escape stops" : "Ask Pi about your code";
}

/** The line under the box: what Enter will do with a `!cmd` draft, else the images' or the chat's state. */
export function footerHint(draft: string, checkingImages: boolean, editsAllowedForChat: boolean): string {
  const command = commandHint(draft);
  if (command !== undefined) return command;
  if (checkingImages) return "Checking whether the model accepts images…";
  return editsAllowedForChat ? "Edits are allowed for this chat" : "";
}

/** What Enter will do with a `!cmd` / `!!cmd` draft (the host decides; this only says it). */
function commandHint(draft: string): string | undefined {
  const text = draft.trimStart();
  if (text.startsWith("!!") && text.slice(2).trim() !== "") return "Runs in the workspace now; the output is not sent to Pi";
  if (text.startsWith("!") && text.slice(1).trim() !== "") return "Runs in the workspace now; Pi sees the output with your next message";
  return undefined;
}
