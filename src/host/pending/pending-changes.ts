// Pending changes after the write: the files Pi changed since the last prompt of the chat on
// screen, or since a checkpoint the user picked (edit_file in auto mode, Apply to file, a
// command), hunk by hunk, with Keep and Undo. The checkpoint picked must be one of the chat's
// prompts on screen with a mark in its journal (a forged id changes nothing); it is kept per chat
// in the workspace's state, so it survives a reload.
// What is Pi's comes from the checkpoint journal only (core/checkpoints/pending.ts); the file
// now is read from its editor (unsaved edits are the user's) or the disk. The paths Keep and Undo
// act on are those of the recorded writes: a path from the view or a command that is not one of
// them does nothing. Undo is one WorkspaceEdit (so Ctrl+Z takes it back), saved, and never
// touches a line the user changed since. Decisions are kept in the workspace's state per chat and
// prompt, and checked again against the journal and the file at every read, so they survive a
// reload.
import * as vscode from "vscode";
import {
  type Checkpoints,
  type FileState,
  type HunkDecision,
  isAbsent,
  type JournalEntry,
  isFileState,
  journalMarks,
  type PendingHunk,
  type PiWrite,
  pendingCounts,
  pendingWrites,
  type RefusedHunk,
  reviewableState,
  reviewFile,
  stateKey,
  undoEdits,
} from "../../core/checkpoints";
import { hunkNames } from "../../shared/partial-patch";
import { checkpointLabel } from "../../shared/checkpoint-label";
import type { PendingCheckpoint, PendingFileSummary } from "../../shared/protocol";
import type { WorkspacePaths } from "../adapters/workspace-paths";

/** The workspace-state key of the decisions (one record per chat, the newest few). */
const DECISIONS_KEY = "piChat.pendingDecisions";
/** The workspace-state key of the checkpoint picked per chat (none: since the last prompt). */
const SINCE_KEY = "piChat.pendingSince";
/** Chats whose decisions are kept: a chat reopened after more than this many others shows its changes pending again. */
const MAX_REMEMBERED_CHATS = 20;

/** What the changed-files list shows: the files, since which checkpoint, and the checkpoints to pick from (newest first). */
export interface PendingList {
  readonly files: PendingFileSummary[];
  readonly since?: PendingCheckpoint;
  readonly checkpoints: PendingCheckpoint[];
}

interface StoredFile {
  before: string;
  after: string;
  kept: number[];
  undone: number[];
}
interface StoredChat {
  chatId: string;
  markId: string;
  files: Record<string, StoredFile>;
}

/** One file under review now. */
export interface PendingFile {
  readonly write: PiWrite;
  readonly uri: vscode.Uri;
  readonly hunks: PendingHunk[];
  /** The text the hunks were read against (null: no file there). */
  readonly current: string | null;
  /** What was there before Pi's write (null: nothing), as bytes for a file Pi deleted. */
  readonly beforeBytes: Uint8Array | undefined;
}

/** What a Keep or Undo did, in words for the view and the editor. */
export interface DecisionOutcome {
  readonly done: boolean;
  readonly said: string;
}

function isIndexList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((n) => Number.isInteger(n) && n >= 0);
}

function storedSince(value: unknown): { chatId: string; markId: string }[] {
  if (!Array.isArray(value)) return [];
  return value.filter((c): c is { chatId: string; markId: string } => {
    const v = c as Record<string, unknown> | null;
    return typeof v === "object" && v !== null && typeof v["chatId"] === "string" && typeof v["markId"] === "string";
  });
}

function storedChats(value: unknown): StoredChat[] {
  if (!Array.isArray(value)) return [];
  return value.filter((c): c is StoredChat => {
    if (typeof c !== "object" || c === null) return false;
    const { chatId, markId, files } = c as Record<string, unknown>;
    if (typeof chatId !== "string" || typeof markId !== "string" || typeof files !== "object" || files === null) return false;
    return Object.values(files).every((f: unknown) => {
      const file = f as Record<string, unknown> | null;
      return !!file && typeof file["before"] === "string" && typeof file["after"] === "string" && isIndexList(file["kept"]) && isIndexList(file["undone"]);
    });
  });
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A file's text (its BOM left out, as an editor shows it); undefined for bytes that are not text. */
function textOf(bytes: Uint8Array): string | undefined {
  try {
    const text = strictUtf8.decode(bytes);
    return text.includes("\0") ? undefined : text;
  } catch {
    return undefined;
  }
}

function byOf(write: PiWrite): PendingFileSummary["by"] {
  const command = write.by.includes("command");
  return command && write.by.length === 1 ? "command" : command ? "both" : "pi";
}

function kindOf(write: PiWrite): PendingFileSummary["kind"] {
  return isAbsent(write.before) ? "created" : isAbsent(write.after) ? "deleted" : "modified";
}

export class PendingChanges implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** The list or a file's hunks changed (lenses, decorations). */
  readonly onDidChange = this.changeEmitter.event;
  private reviewed = new Map<string, PendingFile>();
  private markId: string | undefined;
  private chatId: string | undefined;
  /** The checkpoint picked (none: since the last prompt), and the chat's checkpoints with a mark in its journal. */
  private since: PendingCheckpoint | undefined;
  private checkpoints: PendingCheckpoint[] = [];
  private reading: Promise<void> | undefined;
  private again = false;
  private lastSaid: string | undefined;

  constructor(
    private readonly options: {
      readonly checkpoints: Checkpoints;
      readonly paths: WorkspacePaths;
      readonly state: vscode.Memento;
      readonly currentChatId: () => string;
      /** The checkpoints of the chat on screen (its prompts on the path), newest first. */
      readonly checkpointsOf: () => PendingCheckpoint[];
      readonly send: (list: PendingList, said: string | undefined) => void;
      readonly log: (line: string) => void;
    },
  ) {
    const listener = (chatId: string) => {
      if (chatId === options.currentChatId()) this.refresh();
    };
    options.checkpoints.storage.appended.add(listener);
    const reviewedUri = (uri: vscode.Uri) => {
      const path = options.paths.pathOf(uri);
      return path !== undefined && this.reviewed.has(path);
    };
    this.disposables.push(
      { dispose: () => options.checkpoints.storage.appended.delete(listener) },
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && reviewedUri(e.document.uri)) this.refresh();
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => reviewedUri(doc.uri) && this.refresh()),
      vscode.workspace.onDidDeleteFiles(() => this.refresh()),
      vscode.workspace.onDidCreateFiles(() => this.refresh()),
      this.changeEmitter,
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** The files under review, by path (the recorded writes with a change still pending). */
  get files(): ReadonlyMap<string, PendingFile> {
    return this.reviewed;
  }

  fileOf(uri: vscode.Uri): PendingFile | undefined {
    const path = this.options.paths.pathOf(uri);
    return path === undefined ? undefined : this.reviewed.get(path);
  }

  /** Reads the journal and the files again (coalesced: one read at a time, one more if asked meanwhile). */
  refresh(): void {
    if (this.reading !== undefined) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.read().catch((e: unknown) => this.options.log(`pending changes: could not be read: ${String(e)}`));
      } while (this.again);
      this.reading = undefined;
    })();
  }

  /** Resolves once no read is running or asked for (tests, and before a decision). */
  async settled(): Promise<void> {
    while (this.reading !== undefined) await this.reading;
  }

  /** The list as the view shows it. */
  summaries(): PendingFileSummary[] {
    return [...this.reviewed.values()].map((f) => ({ path: f.write.path, by: byOf(f.write), kind: kindOf(f.write), ...pendingCounts(f.hunks) }));
  }

  /** The list with since which checkpoint, as the view gets it. */
  list(): PendingList {
    return { files: this.summaries(), ...(this.since ? { since: this.since } : {}), checkpoints: this.checkpoints };
  }

  /** The checkpoint picked for the chat on screen (none: since the last prompt). */
  get sinceCheckpoint(): PendingCheckpoint | undefined {
    return this.since;
  }

  /** The checkpoints the user can pick from now, newest first (each with a mark in the chat's journal). */
  get checkpointChoices(): readonly PendingCheckpoint[] {
    return this.checkpoints;
  }

  /** The view (re)loaded: it gets the list as it is. */
  resend(): void {
    this.options.send(this.list(), undefined);
  }

  /** The chat's checkpoints that the journal has a mark of, newest first: the only ones a review can start from. */
  private async markedCheckpoints(chatId: string): Promise<{ entries: readonly JournalEntry[]; checkpoints: PendingCheckpoint[] }> {
    const { entries } = await this.options.checkpoints.storage.readJournal(chatId);
    const marks = journalMarks(entries);
    return { entries, checkpoints: this.options.checkpointsOf().filter((c) => marks.has(c.markId)) };
  }

  /**
   * Reviews the changes since the checkpoint `markId` (none, or the newest: since the last prompt
   * again). The id is untrusted (the view's, a command's argument): anything but one of the chat's
   * checkpoints with a mark in its journal is refused and changes nothing.
   */
  async reviewSince(markId: string | undefined): Promise<DecisionOutcome> {
    await this.settled();
    const chatId = this.options.currentChatId();
    const { checkpoints } = await this.markedCheckpoints(chatId);
    const picked = markId === undefined ? undefined : checkpoints.find((c) => c.markId === markId);
    if (markId !== undefined && !picked) {
      this.options.log(`pending changes: refused a checkpoint that is not one of this chat's (${JSON.stringify(markId.slice(0, 80))})`);
      return { done: false, said: "That is not a checkpoint of this chat: the list is as it was." };
    }
    const keep = picked && picked !== checkpoints[0] ? picked : undefined;
    const others = storedSince(this.options.state.get(SINCE_KEY)).filter((c) => c.chatId !== chatId);
    await this.options.state.update(SINCE_KEY, (keep ? [...others, { chatId, markId: keep.markId }] : others).slice(-MAX_REMEMBERED_CHATS));
    return this.told(true, keep ? `Showing Pi's changes since ${checkpointLabel(keep)}.` : "Showing Pi's changes since your last message.");
  }

  private async read(): Promise<void> {
    const chatId = this.options.currentChatId();
    const { entries, checkpoints } = await this.markedCheckpoints(chatId);
    // A picked checkpoint no longer on the path (another branch, a forged state) is not one: since the last prompt.
    const pickedId = storedSince(this.options.state.get(SINCE_KEY)).find((c) => c.chatId === chatId)?.markId;
    const since = checkpoints.find((c) => c.markId === pickedId && c !== checkpoints[0]);
    const { markId, writes } = pendingWrites(entries, since?.markId);
    this.chatId = chatId;
    // A journal with no mark yet (writes before the first prompt was recorded) is one review too.
    this.markId = markId ?? "";
    const stored = this.storedFor(chatId, this.markId);
    const reviewed = new Map<string, PendingFile>();
    for (const write of writes) {
      const file = await this.review(write, stored?.files[write.path]);
      if (file && pendingCounts(file.hunks).pending > 0) reviewed.set(write.path, file);
    }
    const before = JSON.stringify(this.list());
    this.reviewed = reviewed;
    this.since = since;
    this.checkpoints = checkpoints;
    const said = this.lastSaid;
    this.lastSaid = undefined;
    if (said !== undefined || JSON.stringify(this.list()) !== before) this.options.send(this.list(), said);
    this.changeEmitter.fire();
  }

  private storedFor(chatId: string, markId: string): StoredChat | undefined {
    return storedChats(this.options.state.get(DECISIONS_KEY)).find((c) => c.chatId === chatId && c.markId === markId);
  }

  /** Decisions that still fit the write (the same before and after); others are a different review. */
  private decisionsOf(write: PiWrite, stored: StoredFile | undefined): Map<number, HunkDecision> {
    const decisions = new Map<number, HunkDecision>();
    if (!stored || stored.before !== stateKey(write.before) || stored.after !== stateKey(write.after)) return decisions;
    for (const i of stored.kept) decisions.set(i, "kept");
    for (const i of stored.undone) decisions.set(i, "undone");
    return decisions;
  }

  private async blobText(state: FileState): Promise<{ text: string | null; bytes?: Uint8Array } | undefined> {
    if (isAbsent(state)) return { text: null };
    if (!isFileState(state) || !state.kept) return undefined;
    const bytes = await this.options.checkpoints.storage.getBlob(state.hash);
    const text = bytes && textOf(bytes);
    return bytes && text !== undefined ? { text, bytes } : undefined;
  }

  /** The file now: its editor's text (unsaved edits are the user's), else the disk; null when nothing is there. */
  async currentText(uri: vscode.Uri): Promise<string | null | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open && !open.isClosed) return open.getText();
    const bytes = await vscode.workspace.fs.readFile(uri).then(
      (b) => b,
      () => null,
    );
    return bytes === null ? null : textOf(bytes);
  }

  private async review(write: PiWrite, stored: StoredFile | undefined): Promise<PendingFile | undefined> {
    const uri = this.options.paths.uriOf(write.path);
    if (!uri || !reviewableState(write.before) || !reviewableState(write.after)) return undefined;
    const [before, after] = await Promise.all([this.blobText(write.before), this.blobText(write.after)]);
    const current = await this.currentText(uri);
    if (!before || !after || current === undefined) return undefined;
    const hunks = reviewFile({ before: before.text, after: after.text, current }, this.decisionsOf(write, stored));
    return { write, uri, hunks, current, beforeBytes: before.bytes };
  }

  private async remember(path: string, write: PiWrite, decided: ReadonlyMap<number, HunkDecision>): Promise<void> {
    if (this.chatId === undefined || this.markId === undefined) return;
    const chats = storedChats(this.options.state.get(DECISIONS_KEY)).filter((c) => c.chatId !== this.chatId || c.markId === this.markId);
    let chat = chats.find((c) => c.chatId === this.chatId);
    if (!chat) {
      chat = { chatId: this.chatId, markId: this.markId, files: {} };
      chats.push(chat);
    }
    const kept: number[] = [];
    const undone: number[] = [];
    for (const [i, d] of decided) (d === "kept" ? kept : undone).push(i);
    chat.files[path] = { before: stateKey(write.before), after: stateKey(write.after), kept, undone };
    // The chat decided last goes to the end; the oldest fall off.
    const rest = chats.filter((c) => c !== chat);
    await this.options.state.update(DECISIONS_KEY, [...rest, chat].slice(-MAX_REMEMBERED_CHATS));
  }

  private decisionMap(file: PendingFile): Map<number, HunkDecision> {
    const map = new Map<number, HunkDecision>();
    for (const h of file.hunks) if (h.decision) map.set(h.index, h.decision);
    return map;
  }

  /** Keeps `hunks` (all pending when undefined) of `path`, or of every file when `path` is undefined. */
  async keep(path: string | undefined, hunks?: readonly number[]): Promise<DecisionOutcome> {
    await this.settled();
    const files = this.targets(path);
    if (!files) return this.told(false, "Nothing was kept: that file has no changes of Pi's pending.");
    let count = 0;
    for (const file of files) {
      const decided = this.decisionMap(file);
      for (const h of file.hunks) {
        if (h.decision || (hunks && path !== undefined && !hunks.includes(h.index))) continue;
        decided.set(h.index, "kept");
        count++;
      }
      await this.remember(file.write.path, file.write, decided);
    }
    if (count === 0) return this.told(false, "Nothing was kept: no such change is pending.");
    return this.told(true, `Kept ${count === 1 ? "1 change" : `${count} changes`} ${path === undefined ? "in every file" : `in ${path}`}.`);
  }

  /**
   * Undoes `hunks` (all pending when undefined) of `path`, or of every file: what was there
   * before Pi's write is put back in one WorkspaceEdit, then saved. A hunk the user changed since
   * is refused with the reason; the file is read again first, so nothing stale is written.
   */
  async undo(path: string | undefined, hunks?: readonly number[]): Promise<DecisionOutcome> {
    await this.settled();
    const files = this.targets(path);
    if (!files) return this.told(false, "Nothing was undone: that file has no changes of Pi's pending.");
    const edit = new vscode.WorkspaceEdit();
    const planned: { file: PendingFile; undone: number[]; doc?: vscode.TextDocument }[] = [];
    const refusals: string[] = [];
    for (const file of files) {
      // Opened first, so the review reads the text the edit will change (an editor's, unsaved edits and all).
      if (!isAbsent(file.write.after)) await vscode.workspace.openTextDocument(file.uri).then(undefined, () => undefined);
      const fresh = await this.review(file.write, this.storedFile(file.write.path));
      if (!fresh) continue;
      const wanted = fresh.hunks.filter((h) => !h.decision && (!hunks || path === undefined || hunks.includes(h.index))).map((h) => h.index);
      if (wanted.length === 0) continue;
      const step = await this.planUndo(fresh, wanted, edit);
      if (step.refused.length > 0) refusals.push(refusalText(fresh.write.path, step.refused));
      if (step.undone.length > 0) planned.push({ file: fresh, undone: step.undone, ...(step.doc ? { doc: step.doc } : {}) });
    }
    if (planned.length === 0)
      return this.told(false, refusals.length > 0 ? `Not undone: ${refusals.join("; ")}.` : "Nothing was undone: no such change is pending.");
    if (!(await vscode.workspace.applyEdit(edit))) return this.told(false, "Nothing was undone: VS Code did not apply the edit.");
    let count = 0;
    for (const { file, undone, doc } of planned) {
      if (doc && !doc.isClosed && doc.isDirty) await doc.save();
      const decided = this.decisionMap(file);
      for (const i of undone) decided.set(i, "undone");
      await this.remember(file.write.path, file.write, decided);
      count += undone.length;
    }
    const where = path ?? (planned.length === 1 ? planned[0]?.file.write.path : `${planned.length} files`);
    const refused = refusals.length > 0 ? ` Not undone: ${refusals.join("; ")}.` : "";
    return this.told(true, `Undid ${count === 1 ? "1 change" : `${count} changes`} in ${where}.${refused}`);
  }

  private storedFile(path: string): StoredFile | undefined {
    return this.chatId === undefined ? undefined : this.storedFor(this.chatId, this.markId ?? "")?.files[path];
  }

  /** The files a decision names: one listed file, or all of them; undefined for a path Pi did not write (or nothing pending). */
  private targets(path: string | undefined): PendingFile[] | undefined {
    if (path === undefined) return this.reviewed.size > 0 ? [...this.reviewed.values()] : undefined;
    const file = this.reviewed.get(path);
    return file ? [file] : undefined;
  }

  /** Adds one file's undo to `edit`: a file Pi created is deleted, one it deleted is made again, else its lines are put back. */
  private async planUndo(
    file: PendingFile,
    wanted: number[],
    edit: vscode.WorkspaceEdit,
  ): Promise<{ undone: number[]; refused: RefusedHunk[]; doc?: vscode.TextDocument }> {
    const { write, uri } = file;
    if (isAbsent(write.after)) {
      const hunk = file.hunks[0];
      if (!hunk || hunk.changedByYou) return { undone: [], refused: [{ index: 0, reason: "a file is there again since Pi deleted it" }] };
      edit.createFile(uri, { contents: file.beforeBytes ?? new Uint8Array(), overwrite: false });
      return { undone: file.hunks.map((h) => h.index), refused: [] };
    }
    const { edits, undone, refused } = undoEdits(file.hunks, wanted, file.current ?? "");
    if (undone.length === 0 || file.current === null) return { undone: [], refused };
    const doc = await vscode.workspace.openTextDocument(uri);
    // The review was read from this document's text (opened before it was read): anything else is stale.
    if (doc.getText() !== file.current)
      return { undone: [], refused: undone.map((index) => ({ index, reason: "the file changed while it was read; try again" })) };
    if (isAbsent(write.before) && undone.length === file.hunks.length) {
      edit.deleteFile(uri, { ignoreIfNotExists: true });
      return { undone, refused };
    }
    for (const e of edits) edit.replace(uri, new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.text);
    return { undone, refused, doc };
  }

  /** The outcome, said in the view with the list as it is after a fresh read. */
  private told(done: boolean, said: string): DecisionOutcome {
    this.lastSaid = said;
    this.refresh();
    return { done, said };
  }
}

function refusalText(path: string, refused: readonly RefusedHunk[]): string {
  const reasons = [...new Set(refused.map((r) => r.reason))];
  return `${hunkNames(refused.map((r) => r.index))} of ${path} (${reasons.join("; ")})`;
}
