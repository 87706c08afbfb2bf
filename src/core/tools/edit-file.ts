// edit_file: replace text in a workspace file, one place or several at once (all or nothing).
//
// Split in two so the permission gate can show the diff before anything is written:
//
//   beforeToolCall (the gate, src/core/permissions/edit-gate.ts):
//     const params = asEditFileParams(args)             // args are schema-validated already
//     try { proposal = await proposeEdit(fs, root, params) }
//     catch (e) { return { block: true, reason: e.message } }   // the model sees why
//     proposals.set(toolCall.id, proposal)
//     ask the user, showing proposal.diff
//     denied -> proposals.delete(toolCall.id); return { block: true, reason: "The user denied ..." }
//   execute (this tool, same toolCallId):
//     takes the stored proposal out of `proposals`, checks it is for these very params, and calls
//     applyEdit, which re-reads the file and writes only if it is still byte-for-byte what the user
//     was shown. Without a stored proposal it proposes and applies in one go (or, with
//     `requireProposal`, refuses: nothing is written that the gate did not see).
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { arr, obj, opt, str, type Static } from "@earendil-works/pi-schema";
import type { StructuredPatchHunk } from "diff";
import { editDiff } from "./edit-diff";
import { DEFAULT_MAX_EDIT_FILE_BYTES, openTextFile, hasUtf8Bom, readWithin, refuseHardLinks, resolveToolPath, sha256Hex } from "./file-access";
import { plural } from "../../shared/format";
import { throwIfAborted, WorkspaceToolError } from "./tool-error";
import { explainMiss, findMatch, MatchableText } from "./edit-match";
import type { WorkspaceFileSystem } from "./workspace-fs";

const oneEdit = obj({
  oldText: str({ description: "Text to replace, copied from the file. Must identify exactly one place in the file." }),
  newText: str({ description: "Replacement text, written as given." }),
});

export const editFileParameters = obj({
  path: str({ description: "Path of the file, relative to the workspace root." }),
  oldText: opt(
    str({
      description: "Text to replace (single-edit form). Must occur exactly once in the file; copy it from the file, whitespace and indentation included.",
    }),
  ),
  newText: opt(str({ description: "Replacement text (single-edit form)." })),
  edits: opt(
    arr(oneEdit, {
      description:
        "Several replacements in one file, applied together as one change (all or none). Each oldText is matched against the file as it is now, before any of these edits; they must not overlap.",
    }),
  ),
});

export type EditFileParams = Static<typeof editFileParameters>;

/** For the UI. The diff is over the text with line endings shown as "\n" and without a BOM. */
export interface EditFileDetails {
  /** Normalized workspace-relative path. */
  path: string;
  /** Unified diff with ---/+++ headers (a/path, b/path) and 3 lines of context. */
  diff: string;
  /** The diff package's own hunks (lines start with " ", "-", "+" or "\\"); the view's typed hunks are built from them. */
  hunks: StructuredPatchHunk[];
  additions: number;
  deletions: number;
  /** First changed line in the new file, 1-based. */
  firstChangedLine: number;
}

/** A computed, not yet written, edit. Immutable; holds no secrets beyond the file's own text. */
export interface EditProposal {
  /** The parameters it was computed for: execute refuses to apply it for other ones. */
  readonly params: Readonly<EditFileParams>;
  /** Normalized path as requested. */
  readonly path: string;
  /** Real workspace-relative path (after symlinks) that will be written. */
  readonly realPath: string;
  /** SHA-256 (hex) and size of the bytes the proposal was computed from. */
  readonly originalHash: string;
  readonly originalSize: number;
  /** The file's text as read (without its BOM, line endings kept): taking part of the edit starts from it (partial-edit.ts). */
  readonly oldText: string;
  /** The complete new file content, BOM and line endings preserved. */
  readonly newBytes: Uint8Array;
  readonly lineEnding: "lf" | "crlf" | "mixed";
  readonly bom: boolean;
  readonly details: Readonly<EditFileDetails>;
  /** What the model is told once the edit is written. */
  readonly summary: string;
}

/** Where the gate leaves proposals for execute; a `Map<string, EditProposal>` fits. */
export interface EditProposalStore {
  get(toolCallId: string): EditProposal | undefined;
  delete(toolCallId: string): boolean;
}

export interface EditFileToolOptions {
  /** Absolute workspace root, to accept absolute paths inside it (else they are refused). */
  root?: string;
  /** Proposals computed by the permission gate, keyed by toolCallId; execute consumes them. */
  proposals?: EditProposalStore;
  /** Refuse to execute without a stored proposal (so an edit can never skip the gate). Default false. */
  requireProposal?: boolean;
  /** Larger files are refused. Default DEFAULT_MAX_EDIT_FILE_BYTES (5 MB). */
  maxFileBytes?: number;
  /** A read taking longer is given up. Default DEFAULT_READ_TIMEOUT_MS (30 s). */
  readTimeoutMs?: number;
}

export interface ProposeEditOptions {
  maxFileBytes?: number;
  signal?: AbortSignal;
  readTimeoutMs?: number;
}

/** Narrow the gate's `args: unknown` to edit_file parameters. */
export function asEditFileParams(args: unknown): EditFileParams | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const { path, oldText, newText, edits } = args as Record<string, unknown>;
  if (typeof path !== "string") return undefined;
  if (oldText !== undefined && typeof oldText !== "string") return undefined;
  if (newText !== undefined && typeof newText !== "string") return undefined;
  const params: EditFileParams = { path };
  if (oldText !== undefined) params.oldText = oldText;
  if (newText !== undefined) params.newText = newText;
  if (edits !== undefined) {
    if (!Array.isArray(edits)) return undefined;
    const list: { oldText: string; newText: string }[] = [];
    for (const edit of edits as unknown[]) {
      if (typeof edit !== "object" || edit === null) return undefined;
      const { oldText: o, newText: n } = edit as Record<string, unknown>;
      if (typeof o !== "string" || typeof n !== "string") return undefined;
      list.push({ oldText: o, newText: n });
    }
    params.edits = list;
  }
  return params;
}

/** One replacement, as the model gave it, with the name the model knows it by in messages. */
interface RequestedEdit {
  readonly oldText: string;
  readonly newText: string;
  readonly label: string;
}

/** The single form and the `edits` list, as one list; refuses a call that gives neither or half. */
function requestedEdits(params: EditFileParams, path: string): RequestedEdit[] {
  const out: RequestedEdit[] = [];
  const single = params.oldText !== undefined || params.newText !== undefined;
  if (single) {
    if (params.oldText === undefined || params.newText === undefined) {
      throw new WorkspaceToolError("invalid_edit", "Give both oldText and newText (or a list of {oldText, newText} in edits).");
    }
    out.push({ oldText: params.oldText, newText: params.newText, label: "oldText" });
  }
  (params.edits ?? []).forEach((edit, i) => out.push({ ...edit, label: `edits[${i}].oldText` }));
  if (out.length === 0) {
    throw new WorkspaceToolError(
      "invalid_edit",
      params.edits !== undefined
        ? `edits is empty; give at least one {oldText, newText} for ${path}.`
        : `Nothing to edit in ${path}: give oldText and newText, or edits: [{oldText, newText}, …].`,
    );
  }
  for (const edit of out) {
    if (edit.oldText.length === 0) throw new WorkspaceToolError("invalid_edit", `${edit.label} is empty; give the exact text to replace.`);
    if (edit.oldText.replace(/\r\n/g, "\n") === edit.newText.replace(/\r\n/g, "\n")) {
      throw new WorkspaceToolError("no_change", `${edit.label} and its newText are the same; nothing to change.`);
    }
  }
  return out;
}

const DIFF_CONTEXT_LINES = 3;

function detectLineEnding(text: string): "lf" | "crlf" | "mixed" {
  if (!text.includes("\r")) return "lf"; // the common case, without building an array of every line break
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/\n/g) ?? []).length - crlf;
  if (crlf === 0) return "lf";
  return lf === 0 ? "crlf" : "mixed";
}

/** For a replacement that has no line break of its own to copy: what most of the file uses. */
function prefersCrlf(text: string, lineEnding: "lf" | "crlf" | "mixed"): boolean {
  if (lineEnding !== "mixed") return lineEnding === "crlf";
  const crlf = (text.match(/\r\n/g) ?? []).length;
  return crlf * 2 > (text.match(/\n/g) ?? []).length;
}

export function summarize(path: string, additions: number, deletions: number, firstChangedLine: number, editCount: number, fuzzy: readonly string[]): string {
  const change =
    additions === deletions
      ? `${plural(additions, "line")} changed`
      : deletions === 0
        ? `${plural(additions, "line")} added`
        : additions === 0
          ? `${plural(deletions, "line")} removed`
          : `${plural(deletions, "line")} replaced by ${additions}`;
  const edits = editCount > 1 ? `${editCount} edits, ` : "";
  const note =
    fuzzy.length === 0
      ? ""
      : ` ${fuzzy.join(", ")} matched only after ignoring differences in trailing whitespace, quotes, dashes or special spaces; the file's own text was replaced.`;
  return `Edited ${path}: ${edits}${change} (at line ${firstChangedLine}).${note}`;
}

/** A match in the file, ready to be replaced. */
interface PlacedEdit {
  readonly edit: RequestedEdit;
  readonly start: number;
  readonly end: number;
  readonly fuzzy: boolean;
}

function placeEdit(file: MatchableText, edit: RequestedEdit, path: string): PlacedEdit {
  const found = findMatch(file, edit.oldText);
  switch (found.kind) {
    case "exact":
    case "fuzzy":
      return { edit, start: found.start, end: found.end, fuzzy: found.kind === "fuzzy" };
    case "ambiguous":
      throw new WorkspaceToolError(
        "ambiguous_match",
        `${edit.label} occurs ${found.count} times in ${path}${found.fuzzy ? " (counting places that differ only in trailing whitespace, quotes, dashes or special spaces)" : ""}; it must occur exactly once. Include more of the surrounding lines to make it unique.`,
      );
    case "none":
      throw new WorkspaceToolError("no_match", `${edit.label} was not found in ${path}. ${explainMiss(file.raw, edit.oldText)}`);
  }
}

/** 1-based line of an offset in `raw`, for messages. */
function lineOf(raw: string, offset: number): number {
  let line = 1;
  for (let i = raw.indexOf("\n"); i !== -1 && i < offset; i = raw.indexOf("\n", i + 1)) line++;
  return line;
}

/** The diff of `raw` → `newRaw` (any line endings) and its counts, as an edit's details hold them. */
export function editDetails(path: string, raw: string, newRaw: string): EditFileDetails {
  // Only the changed region is diffed: a whole-file diff of a file near the size cap froze the extension host for seconds.
  const { diff, hunks } = editDiff(path, raw.replace(/\r\n/g, "\n"), newRaw.replace(/\r\n/g, "\n"), DIFF_CONTEXT_LINES);
  let additions = 0;
  let deletions = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
    }
  }
  const first = hunks[0];
  const leadingContext = first ? first.lines.findIndex((l) => l.startsWith("+") || l.startsWith("-")) : 0;
  const firstChangedLine = first ? first.newStart + Math.max(0, leadingContext) : 1;
  // A hunk that adds to an empty file starts at 0.
  return { path, diff, hunks, additions, deletions, firstChangedLine: Math.max(1, firstChangedLine) };
}

/**
 * Validate the path, read the file and compute the edit without writing anything.
 *
 * Each oldText is found in the file as it is now (for `edits`, before any of the call's edits):
 * exactly, line endings aside; else after normalizing (see edit-match.ts). Only the matched regions
 * are replaced, by newText as given with the line ending of the text it replaces (of the file, when
 * that text has no line break); everything else is kept byte for byte, a UTF-8 BOM included.
 * Throws WorkspaceToolError for a bad path, missing/binary/non-UTF-8 file, no match, several
 * matches, overlapping edits, an empty list or an edit that changes nothing: then nothing is written.
 */
export async function proposeEdit(
  fs: WorkspaceFileSystem,
  root: string | undefined,
  params: EditFileParams,
  options: ProposeEditOptions = {},
): Promise<EditProposal> {
  const file = await openTextFile(fs, root, params.path, options.maxFileBytes ?? DEFAULT_MAX_EDIT_FILE_BYTES, options.signal, options.readTimeoutMs).catch(
    (error: unknown) => {
      if (error instanceof WorkspaceToolError && error.code === "too_large") {
        throw new WorkspaceToolError("too_large", `${error.message} edit_file does not change files this large; ask the user to make the change.`);
      }
      throw error;
    },
  );
  const { path } = file;
  refuseHardLinks(path, file.hardLinks);
  const requested = requestedEdits(params, path);

  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(file.bytes);
  } catch {
    // Re-encoding text decoded with replacement characters would corrupt the rest of the file.
    throw new WorkspaceToolError("not_utf8", `${path} is not valid UTF-8 text; edit_file only edits UTF-8 files.`);
  }
  const bom = hasUtf8Bom(file.bytes);
  const raw = bom ? decoded.slice(1) : decoded;
  const matchable = new MatchableText(raw);
  const placed = requested.map((edit) => placeEdit(matchable, edit, path)).sort((a, b) => a.start - b.start);
  for (let i = 1; i < placed.length; i++) {
    const before = placed[i - 1]!;
    const after = placed[i]!;
    if (after.start < before.end) {
      throw new WorkspaceToolError(
        "overlapping_edits",
        `${before.edit.label} and ${after.edit.label} overlap (both change line ${lineOf(raw, after.start)} of ${path}); merge them into one edit.`,
      );
    }
  }

  const lineEnding = detectLineEnding(raw);
  const pieces: string[] = [];
  let cursor = 0;
  for (const { edit, start, end } of placed) {
    const replaced = raw.slice(start, end);
    const useCrlf = replaced.includes("\n") ? replaced.includes("\r\n") : prefersCrlf(raw, lineEnding);
    const newText = edit.newText.replace(/\r\n/g, "\n");
    pieces.push(raw.slice(cursor, start), useCrlf ? newText.replace(/\n/g, "\r\n") : newText);
    cursor = end;
  }
  pieces.push(raw.slice(cursor));
  const newRaw = pieces.join("");
  if (newRaw === raw) throw new WorkspaceToolError("no_change", `The edit would not change ${path}.`);

  const details = editDetails(path, raw, newRaw);
  const { additions, deletions } = details;

  return Object.freeze({
    params: Object.freeze(copyParams(params)),
    path,
    realPath: file.realPath,
    originalHash: sha256Hex(file.bytes),
    originalSize: file.bytes.length,
    oldText: raw,
    newBytes: new TextEncoder().encode((bom ? "\uFEFF" : "") + newRaw),
    lineEnding,
    bom,
    details,
    summary: summarize(
      path,
      additions,
      deletions,
      details.firstChangedLine,
      placed.length,
      placed.filter((p) => p.fuzzy).map((p) => p.edit.label),
    ),
  });
}

/**
 * Write a proposal. Re-checks the path (a symlink may have been swapped in) and re-reads the file:
 * if its bytes are not exactly those the proposal was computed from, throws
 * "changed_since_proposal" and writes nothing.
 */
export async function applyEdit(fs: WorkspaceFileSystem, proposal: EditProposal, signal?: AbortSignal): Promise<AgentToolResult<EditFileDetails>> {
  throwIfAborted(signal);
  // The proposal's path is already normalized; resolving it again repeats only the symlink check.
  const { realPath } = await resolveToolPath(fs, undefined, proposal.path);
  const changed = (): WorkspaceToolError =>
    new WorkspaceToolError(
      "changed_since_proposal",
      `${proposal.path} changed after the edit was prepared, so nothing was written. Read the file again and redo the edit.`,
    );
  if (realPath !== proposal.realPath) throw changed();
  const info = await fs.stat(realPath);
  if (info === undefined || info.type !== "file") throw changed();
  // A second name may have been given to the file since the proposal.
  refuseHardLinks(proposal.path, info.hardLinks);
  let current: Uint8Array;
  try {
    current = await readWithin(fs, realPath, proposal.path, proposal.originalSize, signal);
  } catch (error) {
    if (error instanceof WorkspaceToolError && (error.code === "too_large" || error.code === "not_a_file")) throw changed();
    throw error;
  }
  if (current.length !== proposal.originalSize || sha256Hex(current) !== proposal.originalHash) throw changed();
  throwIfAborted(signal);
  await fs.writeFile(realPath, proposal.newBytes);
  return {
    content: [{ type: "text", text: proposal.summary }],
    details: { ...proposal.details, hunks: proposal.details.hunks.map((h) => ({ ...h, lines: [...h.lines] })) },
  };
}

function copyParams(params: EditFileParams): EditFileParams {
  const copy: EditFileParams = { path: params.path };
  if (params.oldText !== undefined) copy.oldText = params.oldText;
  if (params.newText !== undefined) copy.newText = params.newText;
  if (params.edits !== undefined) copy.edits = params.edits.map((e) => ({ oldText: e.oldText, newText: e.newText }));
  return copy;
}

function sameParams(a: Readonly<EditFileParams>, b: EditFileParams): boolean {
  const sameEdits =
    a.edits === undefined
      ? b.edits === undefined
      : b.edits !== undefined &&
        a.edits.length === b.edits.length &&
        a.edits.every((e, i) => e.oldText === b.edits?.[i]?.oldText && e.newText === b.edits[i]?.newText);
  return a.path === b.path && a.oldText === b.oldText && a.newText === b.newText && sameEdits;
}

export function createEditFileTool(fs: WorkspaceFileSystem, options: EditFileToolOptions = {}): AgentTool<typeof editFileParameters, EditFileDetails> {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_EDIT_FILE_BYTES;
  return {
    name: "edit_file",
    label: "Edit file",
    description:
      "Edit a text file in the workspace by replacing text: oldText with newText, or several {oldText, newText} pairs in edits " +
      "(all matched against the file as it is before the call, applied together as one change, never overlapping). " +
      "Each oldText must occur exactly once: read the file first, copy the text from it and include enough surrounding lines to make it unique. " +
      "Small differences in trailing whitespace, curly quotes, dashes and special spaces are forgiven; indentation is not. " +
      "Only the matched text changes; line endings are kept as the file has them. The user may be asked to approve the edit.",
    parameters: editFileParameters,
    // Edits of one batch must see each other's results, not race on the same file.
    executionMode: "sequential",
    async execute(toolCallId, params, signal): Promise<AgentToolResult<EditFileDetails>> {
      throwIfAborted(signal);
      const stored = options.proposals?.get(toolCallId);
      if (stored !== undefined) options.proposals?.delete(toolCallId);
      if (stored !== undefined && !sameParams(stored.params, params)) {
        throw new WorkspaceToolError("proposal_mismatch", "The edit differs from the one that was approved; nothing was written.");
      }
      if (stored === undefined && options.requireProposal === true) {
        throw new WorkspaceToolError("not_approved", "The edit was not approved; nothing was written.");
      }
      const proposal =
        stored ??
        (await proposeEdit(fs, options.root, params, {
          maxFileBytes,
          signal,
          ...(options.readTimeoutMs !== undefined ? { readTimeoutMs: options.readTimeoutMs } : {}),
        }));
      return applyEdit(fs, proposal, signal);
    },
  };
}
