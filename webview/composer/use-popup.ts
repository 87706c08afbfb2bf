// The state of the composer's `@` and `/` list: which list the caret is in (listAt), the options
// (the host's `@` answer for the newest query, or the `/` list filtered here), the active option,
// the status line, and the text at which Escape closed it (it stays closed until the text changes).
import { useEffect, useRef, useState } from "preact/hooks";
import { fuzzyFilter } from "../../src/shared/fuzzy";
import type { MentionOption, SlashCommand } from "../../src/shared/mentions";
import { post } from "../vscode-api";
import { listAt, type ListAt } from "./mention-tokens";

export type Popup = ListAt & { readonly requestId: number };
export type ListOption = { kind: "mention"; option: MentionOption } | { kind: "command"; command: SlashCommand; positions: readonly number[] };

export type MentionResults = {
  readonly requestId: number;
  readonly options: readonly MentionOption[];
  readonly indexing: boolean;
  readonly truncated: boolean;
};
export type CommandList = { readonly commands: readonly SlashCommand[]; readonly notes: readonly string[] };

export const LISTBOX_ID = "composer-listbox";
export const optionId = (i: number) => `composer-option-${i}`;

function listOptions(popup: Popup | undefined, mentionResults: MentionResults | undefined, commandList: CommandList | undefined): readonly ListOption[] {
  if (!popup) return [];
  if (popup.mode === "mention") {
    if (mentionResults?.requestId !== popup.requestId) return [];
    return mentionResults.options.map((o) => ({ kind: "mention" as const, option: o }));
  }
  const commands = commandList?.commands ?? [];
  return fuzzyFilter(
    popup.query,
    commands.map((c) => c.name),
    50,
  ).map((m) => ({ kind: "command" as const, command: commands[m.index]!, positions: m.positions }));
}

/** The line under the list: still looking, no matches, a truncated workspace, or how many. */
function popupStatus(popup: Popup, count: number, mentionResults: MentionResults | undefined): string {
  const mentionAnswer = popup.mode === "mention" ? mentionResults : undefined;
  if (count === 0) {
    const looking = popup.mode === "mention" && (mentionAnswer?.requestId !== popup.requestId || mentionAnswer.indexing);
    return looking ? "Looking through the workspace…" : "No matches";
  }
  if (mentionAnswer?.truncated) return "The workspace is larger than the list can hold: some paths are missing";
  return `${count} ${count === 1 ? "match" : "matches"}`;
}

export function usePopup(mentionResults: MentionResults | undefined, commandList: CommandList | undefined, readOnly: boolean) {
  const [popup, setPopup] = useState<Popup | undefined>(undefined);
  const [active, setActive] = useState(0);
  /** The text at which Escape closed the list: it stays closed until the text changes. */
  const dismissed = useRef<string | undefined>(undefined);
  const requestId = useRef(0);
  const options = listOptions(popup, mentionResults, commandList);
  const listOpen = popup !== undefined && !readOnly;

  useEffect(() => {
    document.getElementById(optionId(active))?.scrollIntoView({ block: "nearest" });
  }, [active, listOpen]);

  return {
    popup,
    options,
    listOpen,
    active,
    /** The active option's index, within the options. */
    activeIndex: Math.min(active, options.length - 1),
    status: popup ? popupStatus(popup, options.length, mentionResults) : "",
    setActive,
    /** Opens, moves or closes the list for the text before the caret. */
    update(text: string, caret: number) {
      if (dismissed.current === text) return;
      dismissed.current = undefined;
      const next = listAt(text, caret);
      if (!next) {
        setPopup(undefined);
        return;
      }
      if (next.mode === "mention") post({ type: "mention/query", requestId: ++requestId.current, query: next.query });
      else if (popup?.mode !== "command") post({ type: "composer/listCommands" });
      setPopup({ ...next, requestId: requestId.current });
      if (popup?.query !== next.query || popup.mode !== next.mode) setActive(0);
    },
    /** Hides the list (the box left or cleared); an Escape before still holds for the same text. */
    hide() {
      setPopup(undefined);
    },
    /** Closes the list as an option is taken. */
    close() {
      setPopup(undefined);
      dismissed.current = undefined;
    },
    /** Escape: closed until the text is no longer `text`. */
    dismiss(text: string) {
      dismissed.current = text;
      setPopup(undefined);
    },
    /** Arrow keys: the next or previous option, round the end. */
    move(step: 1 | -1) {
      setActive((a) => (Math.min(a, options.length - 1) + (step === 1 ? 1 : options.length - 1)) % options.length);
    },
  };
}

export type PopupState = ReturnType<typeof usePopup>;
