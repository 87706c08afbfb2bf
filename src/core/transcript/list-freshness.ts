// How a history list knows, with two stats, whether its index in memory still describes the
// storage folder: the chats folder's mtime changes when a chat file is created, deleted or
// moved in or out of it, and index.json's mtime and size when a window writes it.
//
// A timestamp has a granularity (a kernel tick of a few ms on Linux, 2 s on FAT), so a change
// made in the same tick as an observation can leave it equal. As git does for its index
// ("racy git"), an observation whose mtime was that close to the moment it was made is not
// trusted: the next list reads again, until an observation is old enough to be sure of.
import type { FileStat, TranscriptStorage } from "./types";
import { isValidChatId } from "./types";

/** An mtime closer than this to the moment it was observed may hide a change made in the same tick. */
export const RACY_MS = 3_000;

export interface Observed {
  size: number;
  mtimeMs: number;
  /** Too recent when observed to prove that nothing changed since. */
  racy: boolean;
}

/** A stat of `path` (undefined when it is missing or cannot be stat-ed: never trusted). */
export async function observe(storage: TranscriptStorage, path: string, clock: () => number = Date.now): Promise<Observed | undefined> {
  let stat: FileStat | undefined;
  try {
    stat = await storage.stat(path);
  } catch {
    return undefined;
  }
  if (!stat) return undefined;
  return { size: stat.size, mtimeMs: stat.mtimeMs, racy: Math.abs(clock() - stat.mtimeMs) < RACY_MS };
}

/** True only when `before` was trustworthy and `now` is the same file state. */
export function unchanged(before: Observed | undefined, now: Observed | undefined): boolean {
  return before !== undefined && now !== undefined && !before.racy && before.mtimeMs === now.mtimeMs && before.size === now.size;
}

/** The chat ids of the `*.jsonl` files in the chats folder (anything else there is not a chat). */
export function chatIdsOf(fileNames: readonly string[]): Set<string> {
  const ids = new Set<string>();
  for (const name of fileNames) {
    if (!name.endsWith(".jsonl")) continue;
    const id = name.slice(0, -".jsonl".length);
    if (isValidChatId(id)) ids.add(id);
  }
  return ids;
}
