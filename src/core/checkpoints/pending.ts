// Pending changes: what Pi wrote since the last prompt, hunk by hunk, for Keep / Undo after the
// write. Pure: the journal (what Pi wrote, before and after each write) and the texts come in,
// the hunks and the edits that undo them go out; the host reads files and writes the edits.
//
// Attribution comes from the journal only, never from a diff against git: the hunks are those
// between the content before Pi's write and Pi's written content. The user's edits since are the
// difference between Pi's text and the file now; they are never shown as Pi's, and a hunk whose
// lines the user changed is "changed by you since" and is never undone blindly.
//
// Decisions are kept per hunk of (before → after), by index: the two texts never change for a
// recorded write, so an index means the same hunk after a reload. Pi's text as the model sees it
// is `after` with the undone hunks put back; the base is `before` with the kept hunks taken.
import { diffArrays } from "diff";
import { linesWithEndings } from "../../shared/partial-patch";
import { type ChangeSource, type FileState, isAbsent, isFileState, type JournalEntry, sameState } from "./types";

/** One file Pi changed since the last prompt: what it was before Pi's first write and what Pi left. */
export interface PiWrite {
  readonly path: string;
  readonly before: FileState;
  readonly after: FileState;
  /** Which of Pi's ways wrote it (edit_file, Apply to file, a command), in order, without repeats. */
  readonly by: readonly Exclude<ChangeSource, "restore">[];
}

/** The ids of the journal's marks (the prompts whose checkpoints it holds). */
export function journalMarks(journal: readonly JournalEntry[]): Set<string> {
  return new Set(journal.flatMap((e) => (e.t === "mark" ? [e.id] : [])));
}

/**
 * The files Pi changed after the journal's last mark (the last prompt), or after the mark
 * `since` (a checkpoint the user picked; its last line when a prompt was marked twice, and the
 * last mark when the journal has no such mark). Per path, the last chain of Pi's writes (each
 * starting from what the one before left): a write that starts from something else began after a
 * change that was not Pi's, and what came before it is not attributable as one piece. A restore
 * ends what came before it. A file back as it was is not pending. Marks inside the span do not
 * break a chain: two prompts' writes to one file are one change since the earlier one.
 */
export function pendingWrites(journal: readonly JournalEntry[], since?: string): { markId: string | undefined; writes: PiWrite[] } {
  let markAt = -1;
  for (const wanted of since === undefined ? [undefined] : [since, undefined]) {
    for (let i = journal.length - 1; i >= 0 && markAt === -1; i--) {
      const entry = journal[i];
      if (entry?.t === "mark" && (wanted === undefined || entry.id === wanted)) markAt = i;
    }
    if (markAt !== -1) break;
  }
  const mark = journal[markAt];
  const chains = new Map<string, { before: FileState; after: FileState; by: Exclude<ChangeSource, "restore">[] } | undefined>();
  for (const entry of journal.slice(markAt + 1)) {
    if (entry.t !== "change") continue;
    if (entry.by === "restore") {
      chains.set(entry.path, undefined);
      continue;
    }
    const chain = chains.get(entry.path);
    if (chain && sameState(chain.after, entry.before)) {
      chain.after = entry.after;
      if (!chain.by.includes(entry.by)) chain.by.push(entry.by);
    } else chains.set(entry.path, { before: entry.before, after: entry.after, by: [entry.by] });
  }
  const writes: PiWrite[] = [];
  for (const [path, chain] of chains) {
    if (!chain || sameState(chain.before, chain.after)) continue;
    writes.push({ path, before: chain.before, after: chain.after, by: chain.by });
  }
  writes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { markId: mark?.t === "mark" ? mark.id : undefined, writes };
}

/** Whether a recorded state can be reviewed line by line: a kept file, or nothing there. */
export function reviewableState(state: FileState): boolean {
  return isAbsent(state) || (isFileState(state) && state.kept);
}

/** A stable name for a recorded state (decisions are kept under it: a different write is a different review). */
export function stateKey(state: FileState): string {
  return isFileState(state) ? state.hash : isAbsent(state) ? "absent" : "unknown";
}

/** One change of Pi's: lines removed from `before` at `oldStart`, lines added in `after` at `newStart` (0-based, lines with their endings). */
export interface LineHunk {
  readonly index: number;
  readonly oldStart: number;
  readonly newStart: number;
  readonly removed: readonly string[];
  readonly added: readonly string[];
}

/** The hunks between two texts, with no context lines: each is exactly what changed. */
export function lineHunks(before: string, after: string): LineHunk[] {
  const changes = diffArrays(linesWithEndings(before), linesWithEndings(after));
  const hunks: LineHunk[] = [];
  let oldLine = 0;
  let newLine = 0;
  let open: { oldStart: number; newStart: number; removed: string[]; added: string[] } | undefined;
  const close = () => {
    if (open) hunks.push({ index: hunks.length, ...open });
    open = undefined;
  };
  for (const change of changes) {
    if (!change.added && !change.removed) {
      close();
      oldLine += change.value.length;
      newLine += change.value.length;
      continue;
    }
    open ??= { oldStart: oldLine, newStart: newLine, removed: [], added: [] };
    if (change.removed) {
      open.removed.push(...change.value);
      oldLine += change.value.length;
    } else {
      open.added.push(...change.value);
      newLine += change.value.length;
    }
  }
  close();
  return hunks;
}

export type HunkDecision = "kept" | "undone";

/** A hunk of Pi's as it stands now. */
export interface PendingHunk extends LineHunk {
  readonly decision: HunkDecision | undefined;
  /** The user changed Pi's lines of this hunk (or right inside it) since: it cannot be undone blindly. */
  readonly changedByYou: boolean;
  /** Where Pi's lines of this hunk are in the current text (0-based line), when untouched. */
  readonly currentLine: number;
}

/** A region of Pi's text the user changed: pi lines [from, to) replaced by `inserted` lines. */
interface UserRegion {
  readonly from: number;
  readonly to: number;
  readonly inserted: number;
}

function userRegions(piLines: readonly string[], currentLines: readonly string[]): UserRegion[] {
  const regions: UserRegion[] = [];
  let line = 0;
  let open: { from: number; to: number; inserted: number } | undefined;
  for (const change of diffArrays(piLines as string[], currentLines as string[])) {
    if (!change.added && !change.removed) {
      if (open) regions.push(open);
      open = undefined;
      line += change.value.length;
      continue;
    }
    open ??= { from: line, to: line, inserted: 0 };
    if (change.removed) {
      line += change.value.length;
      open.to = line;
    } else open.inserted += change.value.length;
  }
  if (open) regions.push(open);
  return regions;
}

/** The texts of one file's review: absent (null) is a file that is not there. */
export interface ReviewTexts {
  readonly before: string | null;
  readonly after: string | null;
  readonly current: string | null;
}

/**
 * Pi's hunks of one file and how each stands against the file now. A hunk is changed by you when
 * a line of Pi's text in it was changed or removed, or lines were put inside it; lines the user
 * put right before or after it are not in it. With the file gone (or back when Pi deleted it),
 * every hunk is the user's to decide by hand.
 */
export function reviewFile(texts: ReviewTexts, decisions: ReadonlyMap<number, HunkDecision>): PendingHunk[] {
  const hunks = lineHunks(texts.before ?? "", texts.after ?? "");
  // Pi's text now: `after` with the undone hunks put back; where each hunk's lines are in it.
  const beforeLines = linesWithEndings(texts.before ?? "");
  const piLines: string[] = [];
  const piStarts: number[] = [];
  let oldCursor = 0;
  for (const hunk of hunks) {
    piLines.push(...beforeLines.slice(oldCursor, hunk.oldStart));
    piStarts.push(piLines.length);
    piLines.push(...(decisions.get(hunk.index) === "undone" ? hunk.removed : hunk.added));
    oldCursor = hunk.oldStart + hunk.removed.length;
  }
  piLines.push(...beforeLines.slice(oldCursor));
  // Pi deleted the file and it is back, or Pi wrote it and it is gone: nothing lines up.
  const fileGone = (texts.current === null) !== (texts.after === null);
  const regions = fileGone ? [] : userRegions(piLines, linesWithEndings(texts.current ?? ""));
  return hunks.map((hunk, i): PendingHunk => {
    const decision = decisions.get(hunk.index);
    const from = piStarts[i] ?? 0;
    const to = from + (decision === "undone" ? hunk.removed.length : hunk.added.length);
    const changedByYou =
      fileGone ||
      regions.some((r) => (from === to ? r.from < from && from < r.to : r.from === r.to ? from < r.from && r.from < to : r.from < to && from < r.to));
    // Lines the user added or removed above the hunk move it.
    let shift = 0;
    for (const r of regions) if (r.to <= from) shift += r.inserted - (r.to - r.from);
    return { ...hunk, decision, changedByYou, currentLine: from + shift };
  });
}

/** A replacement in the current text: `length` characters at `offset` become `text`. */
export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly text: string;
}

/** Why a hunk was not undone. */
export interface RefusedHunk {
  readonly index: number;
  readonly reason: string;
}

export const CHANGED_BY_YOU = "changed by you since: undo it by hand (Undo would overwrite your lines)";

/**
 * The edits that undo `indices` (pending hunks only) in the current text, each putting back
 * exactly what was there before Pi's write; a hunk the user changed since is refused with the
 * reason, and so is one already decided. The edits do not overlap and are in order.
 */
export function undoEdits(
  hunks: readonly PendingHunk[],
  indices: readonly number[],
  current: string,
): { edits: TextEdit[]; undone: number[]; refused: RefusedHunk[] } {
  const lines = linesWithEndings(current);
  const offsets: number[] = [0];
  for (const line of lines) offsets.push((offsets[offsets.length - 1] ?? 0) + line.length);
  const edits: TextEdit[] = [];
  const undone: number[] = [];
  const refused: RefusedHunk[] = [];
  for (const index of [...new Set(indices)].sort((a, b) => a - b)) {
    const hunk = hunks[index];
    if (!hunk) refused.push({ index, reason: "no such change" });
    else if (hunk.decision !== undefined) refused.push({ index, reason: `already ${hunk.decision}` });
    else if (hunk.changedByYou) refused.push({ index, reason: CHANGED_BY_YOU });
    else {
      const start = offsets[hunk.currentLine] ?? current.length;
      const end = offsets[hunk.currentLine + hunk.added.length] ?? current.length;
      edits.push({ offset: start, length: end - start, text: hunk.removed.join("") });
      undone.push(index);
    }
  }
  return { edits, undone, refused };
}

/** The current text with the edits made (they are in order and do not overlap). */
export function applyTextEdits(current: string, edits: readonly TextEdit[]): string {
  let out = "";
  let cursor = 0;
  for (const e of edits) {
    out += current.slice(cursor, e.offset) + e.text;
    cursor = e.offset + e.length;
  }
  return out + current.slice(cursor);
}

/** Lines added and removed by the hunks still pending (the list's +/− figures). */
export function pendingCounts(hunks: readonly PendingHunk[]): { added: number; removed: number; pending: number; changedByYou: number } {
  let added = 0;
  let removed = 0;
  let pending = 0;
  let changedByYou = 0;
  for (const h of hunks) {
    if (h.decision !== undefined) continue;
    pending++;
    added += h.added.length;
    removed += h.removed.length;
    if (h.changedByYou) changedByYou++;
  }
  return { added, removed, pending, changedByYou };
}
