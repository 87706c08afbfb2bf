// read_file: a page of a text file in the workspace, with caps so one call cannot flood the context.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { int, obj, opt, str, type Static } from "@earendil-works/pi-schema";
import { sniffImage } from "../../shared/image-sniff";
import { readImage, type ReadImageInfo, type ReadImageOptions } from "./read-image";
import { DEFAULT_MAX_FILE_BYTES, looksBinary, openWorkspaceFile, refuseHardLinks, utf8Length } from "./file-access";
import { formatBytes } from "../../shared/format";
import { throwIfAborted, WorkspaceToolError } from "./tool-error";
import type { WorkspaceFileSystem } from "./workspace-fs";

export const DEFAULT_READ_MAX_LINES = 2000;
export const DEFAULT_READ_MAX_BYTES = 50 * 1024;

export const readFileParameters = obj({
  path: str({ description: "Path of the file, relative to the workspace root (e.g. src/config.ts)." }),
  offset: opt(int({ minimum: 1, description: "Line to start reading from, 1-based. Default 1." })),
  limit: opt(int({ minimum: 1, description: "Maximum number of lines to return." })),
});

export type ReadFileParams = Static<typeof readFileParameters>;

/** For the UI: what part of the file the model saw. */
export interface ReadFileDetails {
  /** Normalized workspace-relative path. */
  path: string;
  /** First and last line returned, 1-based; both 0 for an empty file. */
  startLine: number;
  endLine: number;
  totalLines: number;
  /** True when the caps (not the caller's `limit`) cut the output short. */
  truncated: boolean;
  truncatedBy?: "lines" | "bytes";
  /** UTF-8 bytes of the returned text (without the continuation note). */
  bytes: number;
  /** Size of the whole file in bytes. */
  fileBytes: number;
  /** An image file: its type and size, and what the model was given (then the line fields are 0). */
  image?: ReadImageInfo;
}

export interface ReadFileToolOptions {
  /**
   * Absolute path of the workspace root, used only to accept absolute paths inside it. Without it
   * absolute paths are refused. Must be the root the `fs` is rooted at.
   */
  root?: string;
  /** Lines per call. Default 2000. */
  maxLines?: number;
  /** UTF-8 bytes of text per call. Default 50 KB. */
  maxBytes?: number;
  /** Larger files are refused. Default 20 MB. */
  maxFileBytes?: number;
  /** A read taking longer is given up. Default DEFAULT_READ_TIMEOUT_MS (30 s). */
  readTimeoutMs?: number;
  /** PNG, JPEG, GIF and WebP files: whether the model can see them, and how large ones are scaled. */
  images?: ReadImageOptions;
}

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, cut between code points. */
function prefixWithinBytes(text: string, maxBytes: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Length(char);
    if (used + size > maxBytes) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/** Lines of a decoded file: "\n"-separated, a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  // "\r" of CRLF files would only be noise for the model.
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

export function createReadFileTool(fs: WorkspaceFileSystem, options: ReadFileToolOptions = {}): AgentTool<typeof readFileParameters, ReadFileDetails> {
  const maxLines = options.maxLines ?? DEFAULT_READ_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_READ_MAX_BYTES;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;

  return {
    name: "read_file",
    label: "Read file",
    description:
      `Read a text file in the workspace. The path is relative to the workspace root. ` +
      `Returns at most ${maxLines} lines or ${formatBytes(maxBytes)} per call; for longer files the ` +
      `result ends with a note giving the offset to continue from. Use offset (1-based line) and limit to read a part. ` +
      `An image file (PNG, JPEG, GIF, WebP) is returned as the image itself, scaled down when large.`,
    parameters: readFileParameters,
    // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the tool's whole answer (ranges, images, binary and size refusals) in the order the model reads it
    async execute(_toolCallId, params, signal): Promise<AgentToolResult<ReadFileDetails>> {
      throwIfAborted(signal);
      const file = await openWorkspaceFile(fs, options.root, params.path, maxFileBytes, signal, options.readTimeoutMs);
      refuseHardLinks(file.path, file.hardLinks, "read_file");
      // What the bytes are, not what the name says: SVG and a text file named .png read as text.
      const image = sniffImage(file.bytes);
      if (image) {
        const read = await readImage(file, image, options.images ?? {}, signal);
        // An image has no lines: 0 for the line fields, the sent bytes in `bytes`.
        return {
          content: read.content,
          details: {
            path: file.path,
            startLine: 0,
            endLine: 0,
            totalLines: 0,
            truncated: false,
            bytes: read.image.sent?.bytes ?? 0,
            fileBytes: file.bytes.length,
            image: read.image,
          },
        };
      }
      if (looksBinary(file.bytes)) {
        throw new WorkspaceToolError("binary", `${file.path} looks like a binary file (it contains NUL bytes); only text files and images can be read.`);
      }
      // Invalid UTF-8 shows as U+FFFD: fine for reading (edit_file refuses such files).
      const lines = splitLines(new TextDecoder("utf-8").decode(file.bytes));
      const totalLines = lines.length;
      const offset = params.offset ?? 1;
      const base = { path: file.path, totalLines, fileBytes: file.bytes.length };

      if (totalLines === 0) {
        if (offset > 1) throw new WorkspaceToolError("offset_out_of_range", `${file.path} is empty; there is no line ${offset}.`);
        return {
          content: [{ type: "text", text: `${file.path} is empty.` }],
          details: { ...base, startLine: 0, endLine: 0, truncated: false, bytes: 0 },
        };
      }
      if (offset > totalLines) {
        throw new WorkspaceToolError(
          "offset_out_of_range",
          `offset ${offset} is beyond the end of ${file.path}, which has ${totalLines} line${totalLines === 1 ? "" : "s"}.`,
        );
      }

      const start = offset - 1;
      const wanted = Math.min(params.limit ?? Number.POSITIVE_INFINITY, totalLines - start);
      const lineBudget = Math.min(wanted, maxLines);
      const shown: string[] = [];
      let used = 0;
      let truncatedBy: "lines" | "bytes" | undefined = lineBudget < wanted ? "lines" : undefined;
      for (let i = start; i < start + lineBudget; i++) {
        const line = lines[i] ?? "";
        const size = utf8Length(line) + (shown.length > 0 ? 1 : 0);
        if (used + size > maxBytes) {
          truncatedBy = "bytes";
          break;
        }
        shown.push(line);
        used += size;
      }

      const startLine = offset;
      let text: string;
      let endLine: number;
      if (shown.length === 0) {
        // A single line longer than the byte cap: show its beginning rather than nothing.
        const line = lines[start] ?? "";
        text = prefixWithinBytes(line, maxBytes);
        used = utf8Length(text);
        endLine = startLine;
        const next = endLine < totalLines ? ` Use offset=${endLine + 1} to continue with the next line.` : "";
        text += `\n\n[Line ${startLine} is ${formatBytes(utf8Length(line))}, over the ${formatBytes(maxBytes)} limit; showing only its start.${next}]`;
      } else {
        text = shown.join("\n");
        endLine = startLine + shown.length - 1;
        if (endLine < totalLines && (truncatedBy !== undefined || params.limit !== undefined)) {
          const why = truncatedBy === "bytes" ? ` (${formatBytes(maxBytes)} limit)` : truncatedBy === "lines" ? ` (${maxLines} line limit)` : "";
          text += `\n\n[Showing lines ${startLine}-${endLine} of ${totalLines}${why}. Use offset=${endLine + 1} to continue.]`;
        }
      }

      const details: ReadFileDetails = { ...base, startLine, endLine, truncated: truncatedBy !== undefined, bytes: used };
      if (truncatedBy !== undefined) details.truncatedBy = truncatedBy;
      return { content: [{ type: "text", text }], details };
    },
  };
}
