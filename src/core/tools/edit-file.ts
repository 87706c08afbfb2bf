// edit_file: replace one exact occurrence of a text in a workspace file.
//
// Split in two so the permission gate can show the diff before anything is written:
//
//   beforeToolCall (gate, src/core/session):
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
import { obj, str, type Static } from "@earendil-works/pi-schema";
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";
import {
  DEFAULT_MAX_FILE_BYTES,
  openTextFile,
  hasUtf8Bom,
  plural,
  resolveToolPath,
  sha256Hex,
  throwIfAborted,
  WorkspaceToolError,
} from "./shared";
import type { WorkspaceFileSystem } from "./workspace-fs";

export const editFileParameters = obj({
  path: str({ description: "Path of the file, relative to the workspace root." }),
  oldText: str({
    minLength: 1,
    description: "Text to replace. Must occur exactly once in the file and match it exactly, whitespace and indentation included.",
  }),
  newText: str({ description: "Replacement text." }),
});

export type EditFileParams = Static<typeof editFileParameters>;

/** One hunk of the diff, as the `diff` package structures it (lines start with " ", "-", "+" or "\\"). */
export interface EditHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** For the UI. The diff is over the text with line endings shown as "\n" and without a BOM. */
export interface EditFileDetails {
  /** Normalized workspace-relative path. */
  path: string;
  /** Unified diff with ---/+++ headers (a/path, b/path) and 3 lines of context. */
  diff: string;
  hunks: EditHunk[];
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
  /** Larger files are refused. Default 20 MB. */
  maxFileBytes?: number;
}

export interface ProposeEditOptions {
  maxFileBytes?: number;
  signal?: AbortSignal;
}

/** Narrow the gate's `args: unknown` to edit_file parameters. */
export function asEditFileParams(args: unknown): EditFileParams | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const { path, oldText, newText } = args as Record<string, unknown>;
  if (typeof path !== "string" || typeof oldText !== "string" || typeof newText !== "string") return undefined;
  return { path, oldText, newText };
}

const DIFF_CONTEXT_LINES = 3;

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  // Overlapping matches count too: each one is a different place the edit could go.
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) count++;
  return count;
}

/**
 * Map positions in `raw.replace(/\r\n/g, "\n")` back to `raw`. A position at a "\n" that was
 * "\r\n" maps to the "\r", so a match never ends between "\r" and "\n".
 */
function toRawPositions(raw: string, positions: readonly number[]): number[] {
  const out: number[] = [];
  let next = 0;
  let i = 0;
  let j = 0;
  while (next < positions.length) {
    while (next < positions.length && positions[next] === j) out[next++] = i;
    if (i >= raw.length) break;
    i += raw[i] === "\r" && raw[i + 1] === "\n" ? 2 : 1;
    j++;
  }
  return out;
}

function detectLineEnding(text: string): "lf" | "crlf" | "mixed" {
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

function summarize(path: string, additions: number, deletions: number, firstChangedLine: number): string {
  const change =
    additions === deletions
      ? `${plural(additions, "line")} changed`
      : deletions === 0
        ? `${plural(additions, "line")} added`
        : additions === 0
          ? `${plural(deletions, "line")} removed`
          : `${plural(deletions, "line")} replaced by ${additions}`;
  return `Edited ${path}: ${change} (at line ${firstChangedLine}).`;
}

/**
 * Validate the path, read the file and compute the edit without writing anything.
 *
 * Matching is exact, except that line endings do not matter: oldText/newText written with "\n" match
 * a CRLF file, and the replacement gets the line ending of the text it replaces (of the file, when
 * that text has no line break). Everything outside the match is kept byte for byte, a UTF-8 BOM
 * included. Throws WorkspaceToolError for a bad path, missing/binary/non-UTF-8 file, no match,
 * several matches, or an edit that changes nothing.
 */
export async function proposeEdit(
  fs: WorkspaceFileSystem,
  root: string | undefined,
  params: EditFileParams,
  options: ProposeEditOptions = {},
): Promise<EditProposal> {
  const file = await openTextFile(fs, root, params.path, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, options.signal);
  const { path } = file;

  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(file.bytes);
  } catch {
    // Re-encoding text decoded with replacement characters would corrupt the rest of the file.
    throw new WorkspaceToolError("not_utf8", `${path} is not valid UTF-8 text; edit_file only edits UTF-8 files.`);
  }
  const bom = hasUtf8Bom(file.bytes);
  const raw = bom ? decoded.slice(1) : decoded;

  const oldText = params.oldText.replace(/\r\n/g, "\n");
  const newText = params.newText.replace(/\r\n/g, "\n");
  if (oldText.length === 0) throw new WorkspaceToolError("no_match", "oldText is empty; give the exact text to replace.");
  if (oldText === newText) throw new WorkspaceToolError("no_change", "oldText and newText are the same; nothing to change.");

  const normalized = raw.replace(/\r\n/g, "\n");
  const matches = countOccurrences(normalized, oldText);
  if (matches === 0) {
    throw new WorkspaceToolError(
      "no_match",
      `oldText was not found in ${path}. It must match the file exactly, including whitespace and indentation; read the file first and copy the text from it.`,
    );
  }
  if (matches > 1) {
    throw new WorkspaceToolError(
      "ambiguous_match",
      `oldText occurs ${matches} times in ${path}; it must occur exactly once. Include more of the surrounding lines to make it unique.`,
    );
  }

  const at = normalized.indexOf(oldText);
  const [rawStart = 0, rawEnd = 0] = toRawPositions(raw, [at, at + oldText.length]);
  const replaced = raw.slice(rawStart, rawEnd);
  const lineEnding = detectLineEnding(raw);
  const useCrlf = replaced.includes("\n") ? replaced.includes("\r\n") : prefersCrlf(raw, lineEnding);
  const insert = useCrlf ? newText.replace(/\n/g, "\r\n") : newText;
  const newRaw = raw.slice(0, rawStart) + insert + raw.slice(rawEnd);
  if (newRaw === raw) throw new WorkspaceToolError("no_change", `The edit would not change ${path}.`);

  const patch = structuredPatch(`a/${path}`, `b/${path}`, normalized, newRaw.replace(/\r\n/g, "\n"), undefined, undefined, {
    context: DIFF_CONTEXT_LINES,
  });
  const hunks: EditHunk[] = patch.hunks.map((h) => ({
    oldStart: h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newStart,
    newLines: h.newLines,
    lines: [...h.lines],
  }));
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
  const details: EditFileDetails = {
    path,
    diff: formatPatch(patch, FILE_HEADERS_ONLY),
    hunks,
    additions,
    deletions,
    firstChangedLine: Math.max(1, firstChangedLine),
  };

  return Object.freeze({
    params: Object.freeze({ path: params.path, oldText: params.oldText, newText: params.newText }),
    path,
    realPath: file.realPath,
    originalHash: sha256Hex(file.bytes),
    originalSize: file.bytes.length,
    newBytes: new TextEncoder().encode((bom ? "\uFEFF" : "") + newRaw),
    lineEnding,
    bom,
    details,
    summary: summarize(path, additions, deletions, details.firstChangedLine),
  });
}

/**
 * Write a proposal. Re-checks the path (a symlink may have been swapped in) and re-reads the file:
 * if its bytes are not exactly those the proposal was computed from, throws
 * "changed_since_proposal" and writes nothing.
 */
export async function applyEdit(
  fs: WorkspaceFileSystem,
  proposal: EditProposal,
  signal?: AbortSignal,
): Promise<AgentToolResult<EditFileDetails>> {
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
  const current = await fs.readFile(realPath);
  if (current.length !== proposal.originalSize || sha256Hex(current) !== proposal.originalHash) throw changed();
  throwIfAborted(signal);
  await fs.writeFile(realPath, proposal.newBytes);
  return {
    content: [{ type: "text", text: proposal.summary }],
    details: { ...proposal.details, hunks: proposal.details.hunks.map((h) => ({ ...h, lines: [...h.lines] })) },
  };
}

function sameParams(a: Readonly<EditFileParams>, b: EditFileParams): boolean {
  return a.path === b.path && a.oldText === b.oldText && a.newText === b.newText;
}

export function createEditFileTool(
  fs: WorkspaceFileSystem,
  options: EditFileToolOptions = {},
): AgentTool<typeof editFileParameters, EditFileDetails> {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return {
    name: "edit_file",
    label: "Edit file",
    description:
      "Edit a text file in the workspace by replacing one exact occurrence of oldText with newText. " +
      "oldText must match the file exactly (whitespace and indentation included) and occur exactly once; " +
      "read the file first and include enough surrounding lines to make it unique. Line endings are kept as the file has them. " +
      "The user may be asked to approve the edit.",
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
      const proposal = stored ?? (await proposeEdit(fs, options.root, params, { maxFileBytes, signal }));
      return applyEdit(fs, proposal, signal);
    },
  };
}
