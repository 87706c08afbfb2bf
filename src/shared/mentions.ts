// What the composer's `@` and `/` lists offer and what a taken mention names. The host decides at
// send time what each mention carries (a file or folder as a reference the model reads with its
// tools; problems, the selection's place, the git changes and the terminal's last command as
// text, capped) and saves that in the transcript as a fileAttachment message; a restored chat
// shows those chips and never reads anything again.

/** A taken mention, as the webview names it in `chat/send`. */
export type MentionRef =
  | { kind: "file" | "folder"; path: string }
  /** The workspace's errors and warnings, or one file's (`path`). */
  | { kind: "problems"; path?: string }
  | { kind: "selection" | "changes" | "terminal" };

export type MentionKind = MentionRef["kind"];

/** The mentions that are not paths, as typed after `@`, with what each brings. */
export const SPECIAL_MENTIONS: readonly { kind: "problems" | "selection" | "changes" | "terminal"; detail: string }[] = [
  { kind: "problems", detail: "The workspace's current errors and warnings" },
  { kind: "selection", detail: "The selection in the active editor (its file and lines)" },
  { kind: "changes", detail: "The working tree's git diff against HEAD" },
  { kind: "terminal", detail: "The active terminal's last command and its output" },
];

/** One row of the `@` list. */
export interface MentionOption {
  readonly ref: MentionRef;
  /** What the row shows and the token the composer inserts after `@`. */
  readonly label: string;
  /** A second, dimmer line (the folder a file is in, what a special mention brings). */
  readonly detail?: string;
  /** Matched character positions in `label`, for highlighting. */
  readonly positions?: readonly number[];
}

/** At most this many mentions go with one message: more is a paste, not a question. */
export const MAX_MENTIONS = 50;

/**
 * The text of a mention in the composer: `@` and its label. A path's control characters (a file
 * name with a newline) are shown as `⏎` so the token stays on one line; the ref keeps the real path.
 */
export function mentionToken(ref: MentionRef): string {
  switch (ref.kind) {
    case "file":
    case "folder":
      return `@${ref.path.replace(/[\u0000-\u001f\u007f]/g, "⏎")}${ref.kind === "folder" ? "/" : ""}`;
    case "problems":
      return ref.path !== undefined ? `@problems:${ref.path}` : "@problems";
    default:
      return `@${ref.kind}`;
  }
}

/** A row of the `/` list. */
export interface SlashCommand {
  /** Typed after `/`. */
  readonly name: string;
  readonly description: string;
  /** The chat's own action, a prompt template, or a skill (`skill:name`). */
  readonly kind: "action" | "template" | "skill";
  readonly argumentHint?: string;
}

export type ChatActionName = "new" | "compact" | "model" | "export" | "history" | "help";

/** The chat's own actions, run by the host when the message is one of them. */
export const ACTION_COMMANDS: readonly (SlashCommand & { readonly name: ChatActionName })[] = [
  { name: "new", description: "Start a new chat", kind: "action" },
  { name: "compact", description: "Summarize the conversation so far to free context", kind: "action", argumentHint: "[what to keep in focus]" },
  { name: "model", description: "Choose the model for this chat", kind: "action" },
  { name: "export", description: "Open this chat as Markdown", kind: "action" },
  { name: "history", description: "Show the chat history", kind: "action" },
  { name: "help", description: "List the commands, what @ can mention, and the keys", kind: "action" },
];

const ACTION_NAMES: ReadonlySet<string> = new Set(ACTION_COMMANDS.map((c) => c.name));

/** Whether `/name` is one of the chat's own actions (the composer and the host's parser both ask). */
export function isChatAction(name: string): name is ChatActionName {
  return ACTION_NAMES.has(name);
}
