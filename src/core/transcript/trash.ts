// Deleted chats go to `trash/` beside `chats/`, moved as they are (the file is renamed, never
// rewritten), so Undo puts back exactly what was there: the same id, every branch, the same
// current leaf. The name records when: `trash/<chatId>.<deletedAt>.jsonl` (a chat id has no dot).
// Entries older than a few days are removed when the extension starts (ChatService.emptyTrash).
import { isValidChatId } from "./types";

export const TRASH_DIR = "trash";

export interface TrashEntry {
  chatId: string;
  /** Unix ms. */
  deletedAt: number;
  /** Storage path of the file. */
  path: string;
}

export function trashPath(chatId: string, deletedAt: number): string {
  return `${TRASH_DIR}/${chatId}.${Math.trunc(deletedAt)}.jsonl`;
}

/** The trash entries among `fileNames` (anything else in the folder is left alone). */
export function trashEntriesOf(fileNames: readonly string[]): TrashEntry[] {
  const entries: TrashEntry[] = [];
  for (const name of fileNames) {
    const match = /^(.+)\.(\d{1,16})\.jsonl$/.exec(name);
    if (!match || !isValidChatId(match[1])) continue;
    entries.push({ chatId: match[1], deletedAt: Number(match[2]), path: `${TRASH_DIR}/${name}` });
  }
  return entries;
}
