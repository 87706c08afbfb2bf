// The project's own instructions: AGENTS.md (or CLAUDE.md where there is none) at the root
// of each workspace folder, read for every request and put in the system prompt under a
// heading that names the file. Read at request time, so an edit counts from the next request;
// never written to the transcript (it is part of the system prompt, which compaction keeps).
//
// The files are workspace content, so untrusted: they are read through the same path guard as
// the tools (a symlink leading outside the folder is refused, special files are not opened),
// capped in size, and the host does not call this at all in an untrusted (restricted) workspace.
// What they say cannot grant anything: every edit still goes through the permission gate.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { SystemMessage } from "@earendil-works/pi-ai";
import { checkRealPath } from "../tools/paths";
import { formatBytes } from "../../shared/format";
import type { WorkspaceFileSystem } from "../tools/workspace-fs";

/** Looked for in this order at each folder root; the first that exists is used. */
export const PROJECT_INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"] as const;

/**
 * UTF-8 bytes of instructions per request, all folders together: about 8,000 tokens, enough for
 * any instruction file written for people, small next to a context window. Past it, the rest of
 * a file is left out at a line boundary and the prompt says how much.
 */
export const DEFAULT_PROJECT_INSTRUCTIONS_MAX_BYTES = 32 * 1024;

/** Files larger than this are not read at all (a generated or misplaced file), and the prompt says so. */
export const PROJECT_INSTRUCTIONS_READ_LIMIT = 1024 * 1024;

/** The name of the system-prompt section (pi-ai `SystemMessage.sections`). */
export const PROJECT_INSTRUCTIONS_SECTION = "project-instructions";

export interface InstructionFolder {
  /** The workspace folder's name, shown in the heading when there are several. */
  name: string;
  fs: WorkspaceFileSystem;
}

export interface InstructionFile {
  folder: string;
  /** "AGENTS.md" or "CLAUDE.md". */
  file: string;
  /** Size of the file on disk. */
  bytes: number;
  /** UTF-8 bytes of it that went into the prompt. */
  includedBytes: number;
  /** Why some or all of it was left out. */
  omitted?: string;
}

export interface ProjectInstructions {
  files: InstructionFile[];
  /** The system-prompt section, or undefined when no folder has an instruction file. */
  section: string | undefined;
}

/** Reads the instruction file of every folder (in folder order) and builds the section. Never throws. */
export async function loadProjectInstructions(
  folders: readonly InstructionFolder[],
  options: { maxBytes?: number; log?: (line: string) => void } = {},
): Promise<ProjectInstructions> {
  let budget = options.maxBytes ?? DEFAULT_PROJECT_INSTRUCTIONS_MAX_BYTES;
  const files: InstructionFile[] = [];
  const parts: string[] = [];
  const several = folders.length > 1;
  for (const folder of folders) {
    let found: { file: string; bytes: Uint8Array | undefined; size: number } | undefined;
    try {
      found = await findInstructionFile(folder.fs);
    } catch (error) {
      options.log?.(`project instructions: cannot read folder ${folder.name}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (!found) continue;
    const where = several ? ` (workspace folder "${folder.name}")` : "";
    const entry: InstructionFile = { folder: folder.name, file: found.file, bytes: found.size, includedBytes: 0 };
    if (found.bytes === undefined) {
      entry.omitted = `${found.file} is ${formatBytes(found.size)}, over the ${formatBytes(PROJECT_INSTRUCTIONS_READ_LIMIT)} Pi Chat reads; it was left out.`;
      parts.push(`## ${found.file}${where}\n\n[${entry.omitted}]`);
      files.push(entry);
      continue;
    }
    const text = new TextDecoder("utf-8")
      .decode(found.bytes)
      .replace(/^\uFEFF/, "")
      .replace(/\r\n/g, "\n")
      .trimEnd();
    const kept = prefixAtLineBoundary(text, Math.max(0, budget));
    entry.includedBytes = utf8Bytes(kept);
    budget -= entry.includedBytes;
    let body = kept;
    if (kept.length < text.length) {
      const totalLines = countLines(text);
      const keptLines = kept === "" ? 0 : countLines(kept);
      entry.omitted = `Only the first ${keptLines} of ${totalLines} lines of ${found.file} (${formatBytes(entry.includedBytes)} of ${formatBytes(utf8Bytes(text))}) fit the ${formatBytes(options.maxBytes ?? DEFAULT_PROJECT_INSTRUCTIONS_MAX_BYTES)} limit for project instructions; lines ${keptLines + 1}-${totalLines} were left out. Read the file with read_file if you need the rest.`;
      body = `${kept}${kept ? "\n\n" : ""}[${entry.omitted}]`;
    }
    parts.push(`## ${found.file}${where}\n\n${body}`);
    files.push(entry);
  }
  if (parts.length === 0) return { files, section: undefined };
  const intro =
    "# Project instructions\n\nThe workspace has instruction files written for coding assistants. Follow them where they apply, unless the user says otherwise. They cannot change what needs the user's approval.";
  return { files, section: `${intro}\n\n${parts.join("\n\n")}` };
}

/**
 * The request view with the section in the leading system message (a copy: the transcript's
 * message is never changed). Pure. With no section, the input is returned as it is.
 */
export function withProjectInstructions(messages: readonly AgentMessage[], section: string | undefined): AgentMessage[] {
  return withSystemSection(messages, PROJECT_INSTRUCTIONS_SECTION, section);
}

/** The request view with a named section of the system message set (one made when there is none); never mutates. */
export function withSystemSection(messages: readonly AgentMessage[], name: string, section: string | undefined): AgentMessage[] {
  if (section === undefined) return messages.slice();
  const first = messages[0];
  if (first?.role === "system") {
    const head: SystemMessage = { ...first, sections: { ...first.sections, [name]: section } };
    return [head, ...messages.slice(1)];
  }
  const head: SystemMessage = { role: "system", content: "", sections: { [name]: section }, timestamp: 0 };
  return [head, ...messages];
}

async function findInstructionFile(fs: WorkspaceFileSystem): Promise<{ file: string; bytes: Uint8Array | undefined; size: number } | undefined> {
  for (const file of PROJECT_INSTRUCTION_FILES) {
    // Same guard as the tools: a symlink that leads outside the folder is not followed.
    const real = await checkRealPath(fs, file);
    if (!real.ok) continue;
    const info = await fs.stat(real.path);
    if (info?.type !== "file") continue;
    // A hard link may be a name for a file outside the folder (no path check sees it): not read, like a symlink out.
    if (info.hardLinks !== undefined && info.hardLinks > 1) continue;
    if (info.size > PROJECT_INSTRUCTIONS_READ_LIMIT) return { file, bytes: undefined, size: info.size };
    const bytes = await fs.readFile(real.path);
    if (bytes.length > PROJECT_INSTRUCTIONS_READ_LIMIT) return { file, bytes: undefined, size: bytes.length };
    return { file, bytes, size: bytes.length };
  }
  return undefined;
}

/** The longest prefix of whole lines within `maxBytes` UTF-8 bytes (the whole text if it fits). */
function prefixAtLineBoundary(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let used = 0;
  let end = 0;
  let kept = 0;
  for (const line of text.split("\n")) {
    const size = utf8Bytes(line) + (kept > 0 ? 1 : 0);
    if (used + size > maxBytes) break;
    used += size;
    end += line.length + (kept > 0 ? 1 : 0);
    kept++;
  }
  return text.slice(0, end);
}

function countLines(text: string): number {
  return text.split("\n").length;
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}
