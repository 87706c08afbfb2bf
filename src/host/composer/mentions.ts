// The composer's `@` mentions in the host: the `@` list (the workspace's paths from the tools'
// walk, kept by core/mention-index, plus the special mentions), and what each mention carries,
// decided when the message is sent: a file or folder as a reference the model reads with its
// tools; the selection as its file and lines; problems, the git changes and the terminal's last
// command as text, capped, with the cap said. The result is saved as fileAttachment messages.
import * as vscode from "vscode";
import { PathIndex, searchPathIndex } from "../../core/mention-index";
import type { FileAttachmentMessage } from "../../core/messages";
import type { WalkRules, WorkspaceFileSystem } from "../../core/tools";
import { cleanLine } from "../../core/shell/output";
import { fuzzyFilter, fuzzyScore, MAX_FUZZY_RESULTS, prepareQuery } from "../../shared/fuzzy";
import { MAX_MENTIONS, type MentionOption, type MentionRef, SPECIAL_MENTIONS, mentionToken } from "../../shared/mentions";
import type { TerminalCommands } from "./terminal-commands";
import type { WorkspacePaths } from "../adapters/workspace-paths";

type PathMention = Extract<MentionRef, { kind: "file" | "folder" }>;

export type MentionAttachment = Omit<FileAttachmentMessage, "role" | "timestamp">;

/** `@problems`: at most this many problems, errors first. */
export const MAX_PROBLEMS = 200;
/** How many files with problems follow `@problems` in the list while it is being typed. */
const PROBLEM_FILES_SHOWN = 5;
/** `@changes`: the diff is cut after this many lines… */
export const MAX_CHANGE_LINES = 2000;
/** …or this many characters, whichever comes first. */
export const MAX_CHANGE_CHARS = 64 * 1024;
/** `@terminal`: the last lines of the last command's output. */
export const MAX_TERMINAL_LINES = 200;
/** How long a mention waits for the rest of an ended command's output to be read. */
const OUTPUT_SETTLE_MS = 1000;

/** Git's extension API, the little of it used here (vscode.git's `getAPI(1)`). */
interface GitRepository {
  readonly rootUri: vscode.Uri;
  diffWithHEAD(): Promise<{ uri: vscode.Uri; status: number }[]>;
  diffWithHEAD(path: string): Promise<string>;
  readonly state: { readonly untrackedChanges?: readonly { uri: vscode.Uri }[]; readonly workingTreeChanges: readonly { uri: vscode.Uri; status: number }[] };
}
interface GitApi {
  readonly repositories: readonly GitRepository[];
}

const trimSlash = (p: string) => p.replace(/\/+$/, "");
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A dropped or pasted item as a note shows it: one line, bounded. */
function oneLineOf(item: string): string {
  const line = item.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 119)}…` : line);
}

function isGitApi(value: unknown): value is GitApi {
  return typeof value === "object" && value !== null && Array.isArray((value as { repositories?: unknown }).repositories);
}

export class WorkspaceMentions implements vscode.Disposable {
  private readonly index: PathIndex;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    fs: WorkspaceFileSystem,
    rules: () => WalkRules,
    private readonly paths: WorkspacePaths,
    private readonly log: (line: string) => void,
    private readonly terminals: TerminalCommands,
  ) {
    this.index = new PathIndex(fs, rules, log);
    // A file created or deleted, or the excludes changed: walk again at the next `@`.
    const watcher = vscode.workspace.createFileSystemWatcher("**/*", false, true, false);
    this.disposables.push(
      watcher,
      watcher.onDidCreate(() => this.index.invalidate()),
      watcher.onDidDelete(() => this.index.invalidate()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("files.exclude")) this.index.invalidate();
      }),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /**
   * The `@` list for `query`: special mentions whose names match, then paths. `problems:` and a
   * path lists the files that have problems now (one file's `@problems`); while the query is the
   * start of `problems`, the files with the most problems follow `@problems` itself.
   */
  async options(query: string): Promise<{ options: MentionOption[]; indexing: boolean; truncated: boolean }> {
    const perFile = /^problems:/i.exec(query);
    if (perFile) return { options: this.problemFileOptions(query.slice(perFile[0].length), MAX_FUZZY_RESULTS), indexing: false, truncated: false };
    const prepared = prepareQuery(query);
    const specials: MentionOption[] = [];
    for (const special of SPECIAL_MENTIONS) {
      const found = fuzzyScore(prepared, special.kind);
      if (found) specials.push({ ref: { kind: special.kind }, label: special.kind, detail: special.detail, positions: found.positions });
      if (special.kind === "problems" && found && prepared.length >= 3 && "problems".startsWith(query.toLowerCase()))
        specials.push(...this.problemFileOptions("", PROBLEM_FILES_SHOWN));
    }
    const { snapshot, indexing } = await this.index.current();
    const files = searchPathIndex(snapshot, query, undefined, this.index.memo).map(
      (hit): MentionOption => ({
        ref: { kind: hit.folder ? "folder" : "file", path: hit.path },
        label: hit.path,
        positions: hit.positions,
      }),
    );
    // Before anything is typed, the open editors come first: what the user is looking at.
    const open = prepared.length === 0 ? this.openEditors() : [];
    const rest = files.filter((f) => !open.some((o) => o.label === f.label));
    return { options: [...specials, ...open, ...rest], indexing, truncated: snapshot.truncated };
  }

  /** One row per workspace file with errors or warnings now, matching `query`; most errors first. */
  private problemFileOptions(query: string, limit: number): MentionOption[] {
    const counts = new Map<string, { errors: number; warnings: number }>();
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      const path = this.paths.pathOf(uri);
      if (path === undefined) continue;
      const errors = diagnostics.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length;
      const warnings = diagnostics.filter((d) => d.severity === vscode.DiagnosticSeverity.Warning).length;
      if (errors + warnings > 0) counts.set(path, { errors, warnings });
    }
    const files = [...counts.entries()].sort((a, b) => b[1].errors - a[1].errors || b[1].warnings - a[1].warnings || (a[0] < b[0] ? -1 : 1));
    const prefix = "problems:";
    const row = ([path, c]: [string, { errors: number; warnings: number }], positions: readonly number[]): MentionOption => ({
      ref: { kind: "problems", path },
      label: `${prefix}${path}`,
      detail: `${plural(c.errors, "error")}, ${plural(c.warnings, "warning")} in this file`,
      positions: positions.map((p) => p + prefix.length),
    });
    if (query === "") return files.slice(0, limit).map((f) => row(f, []));
    return fuzzyFilter(
      query,
      files.map(([path]) => path),
      limit,
    ).map((m) => row(files[m.index]!, m.positions));
  }

  /**
   * Paths dropped on the composer or pasted into it, as mentions: each a URI (`file:///…`, as VS
   * Code's explorer and tabs give them) or a path (absolute, or relative to a workspace folder).
   * Only what exists inside the workspace folders becomes a mention; the rest is refused, said.
   */
  async resolvePaths(items: readonly string[]): Promise<{ refs: PathMention[]; refused: string[] }> {
    const refs: PathMention[] = [];
    const refused: string[] = [];
    for (const item of items.slice(0, MAX_MENTIONS)) {
      const outcome = await this.resolvePath(item);
      if ("refused" in outcome) refused.push(outcome.refused);
      else if (!refs.some((r) => r.kind === outcome.kind && r.path === outcome.path)) refs.push(outcome);
    }
    if (items.length > MAX_MENTIONS) refused.push(`only the first ${MAX_MENTIONS} were taken`);
    return { refs, refused };
  }

  /** One dropped or pasted item: the mention it names, or why it is refused. */
  private async resolvePath(item: string): Promise<PathMention | { refused: string }> {
    const shown = oneLineOf(item);
    const uris = this.candidateUris(item.trim());
    if (uris.length === 0) return { refused: `${shown} is not a file or folder of the workspace` };
    let inside = false;
    let wholeFolder = false;
    for (const uri of uris) {
      // A workspace folder itself: with several folders its name is a tool path; with one, it is everything.
      const root = this.paths.folders.find(
        (f) => f.uri.scheme === uri.scheme && f.uri.authority === uri.authority && trimSlash(f.uri.path) === trimSlash(uri.path),
      );
      if (root && !this.paths.multiRoot) wholeFolder = true;
      const path = root && this.paths.multiRoot ? root.name : this.paths.pathOf(uri);
      if (path === undefined) continue;
      inside = true;
      const stat = await Promise.resolve(vscode.workspace.fs.stat(uri)).catch(() => undefined);
      if (stat) return { kind: stat.type & vscode.FileType.Directory ? "folder" : "file", path };
    }
    return { refused: wholeFolder ? `${shown} is the whole workspace` : inside ? `${shown} does not exist` : `${shown} is outside the workspace folders` };
  }

  /** Where a dropped or pasted item may be: a URI, an absolute path, or a path in some folder. */
  private candidateUris(item: string): vscode.Uri[] {
    if (item === "" || item.length > 4096 || /[\u0000-\u001f]/.test(item)) return [];
    // A URI has a scheme of two letters or more (a single letter is a Windows drive).
    if (/^[a-z][a-z0-9+.-]+:/i.test(item)) {
      try {
        return [vscode.Uri.parse(item, true)];
      } catch {
        return [];
      }
    }
    if (item.startsWith("/") || /^[a-z]:[\\/]/i.test(item)) return [vscode.Uri.file(item)];
    const parts = item
      .replace(/\\/g, "/")
      .split("/")
      .filter((p) => p !== "" && p !== ".");
    if (parts.length === 0 || parts.includes("..")) return [];
    // A tool path (`folder/…` with several folders), else the same path in each folder.
    const direct = this.paths.uriOf(parts.join("/"));
    return [...(direct ? [direct] : []), ...(this.paths.multiRoot ? this.paths.folders.map((f) => vscode.Uri.joinPath(f.uri, ...parts)) : [])];
  }

  /** The workspace files open in editor tabs, the active one first. */
  private openEditors(): MentionOption[] {
    const out: MentionOption[] = [];
    const active = vscode.window.activeTextEditor?.document.uri;
    const uris = [
      ...(active ? [active] : []),
      ...vscode.window.tabGroups.all.flatMap((g) => g.tabs.flatMap((t) => (t.input instanceof vscode.TabInputText ? [t.input.uri] : []))),
    ];
    for (const uri of uris) {
      const path = this.paths.pathOf(uri);
      if (path === undefined || out.some((o) => o.label === path)) continue;
      out.push({ ref: { kind: "file", path }, label: path, detail: "Open editor" });
    }
    return out;
  }

  /** What the mentions carry, read now. A mention that names nothing readable says so instead. */
  async resolve(refs: readonly MentionRef[]): Promise<MentionAttachment[]> {
    const out: MentionAttachment[] = [];
    const seen = new Set<string>();
    for (const ref of refs) {
      const key = mentionToken(ref);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(await this.resolveOne(ref));
    }
    return out;
  }

  private async resolveOne(ref: MentionRef): Promise<MentionAttachment> {
    switch (ref.kind) {
      case "file":
        return { path: ref.path };
      case "folder":
        return { path: ref.path, mention: "folder" };
      case "selection":
        return this.selection();
      case "problems":
        return this.problems(ref.path);
      case "changes":
        return this.changes();
      case "terminal":
        return this.terminal();
    }
  }

  private selection(): MentionAttachment {
    const editor = vscode.window.activeTextEditor;
    const path = editor ? this.paths.pathOf(editor.document.uri) : undefined;
    if (!editor || path === undefined)
      return { path: "@selection", mention: "selection", note: "No editor of a workspace file was active: nothing was selected." };
    const s = editor.selection;
    if (s.isEmpty)
      return { path, mention: "selection", range: { startLine: s.active.line + 1, endLine: s.active.line + 1 }, note: "(nothing selected: the cursor's line)" };
    const endLine = s.end.character === 0 && s.end.line > s.start.line ? s.end.line : s.end.line + 1;
    return { path, mention: "selection", range: { startLine: s.start.line + 1, endLine } };
  }

  private problems(onePath: string | undefined): MentionAttachment {
    const rows: { severity: number; line: string }[] = [];
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      const path = this.paths.pathOf(uri);
      if (path === undefined || (onePath !== undefined && path !== onePath)) continue;
      for (const d of diagnostics) {
        if (d.severity !== vscode.DiagnosticSeverity.Error && d.severity !== vscode.DiagnosticSeverity.Warning) continue;
        const source = d.source ? ` (${d.source}${d.code !== undefined ? ` ${typeof d.code === "object" ? String(d.code.value) : String(d.code)}` : ""})` : "";
        const kind = d.severity === vscode.DiagnosticSeverity.Error ? "error" : "warning";
        rows.push({
          severity: d.severity,
          line: `${path}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${kind}: ${cleanLine(d.message)}${source}`,
        });
      }
    }
    rows.sort((a, b) => a.severity - b.severity || (a.line < b.line ? -1 : 1));
    const shown = rows.slice(0, MAX_PROBLEMS);
    const errors = rows.filter((r) => r.severity === vscode.DiagnosticSeverity.Error).length;
    const note =
      rows.length === 0
        ? "There were none."
        : `${errors} errors, ${rows.length - errors} warnings${rows.length > shown.length ? `; the first ${shown.length} are shown (the cap is ${MAX_PROBLEMS}), ${rows.length - shown.length} were cut` : ""}.`;
    return { path: onePath ?? "@problems", mention: "problems", text: shown.map((r) => r.line).join("\n"), note };
  }

  private async changes(): Promise<MentionAttachment> {
    const git = vscode.extensions.getExtension("vscode.git");
    let api: unknown;
    try {
      const exports = git ? ((git.isActive ? git.exports : await git.activate()) as { getAPI?: (v: 1) => unknown } | undefined) : undefined;
      api = exports?.getAPI?.(1);
    } catch (error) {
      this.log(`@changes: the git extension failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!isGitApi(api)) return { path: "@changes", mention: "changes", text: "", note: "VS Code's git extension is not available: no changes could be read." };
    // The repositories of the open folders (git finds them as the folders open; a fresh one may take a moment).
    const repos = api.repositories.filter((r) => this.paths.pathOf(r.rootUri) !== undefined || this.folderInside(r.rootUri));
    if (repos.length === 0 && api.repositories.length > 0)
      this.log(`@changes: git has ${api.repositories.map((r) => r.rootUri.toString()).join(", ")}, none of the workspace's folders`);
    if (repos.length === 0) return { path: "@changes", mention: "changes", text: "", note: "No git repository is open in the workspace." };
    const parts: string[] = [];
    let files = 0;
    for (const repo of repos) {
      const changed = await repo.diffWithHEAD();
      for (const change of changed) {
        files++;
        parts.push(await repo.diffWithHEAD(change.uri.fsPath));
      }
      for (const untracked of repo.state.untrackedChanges ?? repo.state.workingTreeChanges.filter((c) => c.status === 7)) {
        const path = this.paths.pathOf(untracked.uri) ?? untracked.uri.fsPath;
        parts.push(`(new file, not in git yet: ${path})`);
        files++;
      }
    }
    const whole = parts.join("\n");
    const lines = whole.split("\n");
    let text = lines.slice(0, MAX_CHANGE_LINES).join("\n");
    if (text.length > MAX_CHANGE_CHARS) text = text.slice(0, MAX_CHANGE_CHARS);
    const cut = text.length < whole.length;
    const note =
      files === 0
        ? "The working tree has no changes against HEAD."
        : `${files} changed files, ${lines.length} diff lines${cut ? `; cut to the first ${text.split("\n").length} lines (the cap is ${MAX_CHANGE_LINES} lines or ${MAX_CHANGE_CHARS / 1024} KB)` : ""}.`;
    return { path: "@changes", mention: "changes", text, note };
  }

  /** A repository whose root holds an open folder (the folder is below the repository's root). */
  private folderInside(root: vscode.Uri): boolean {
    const prefix = root.path.endsWith("/") ? root.path : `${root.path}/`;
    return this.paths.folders.some((f) => f.uri.scheme === root.scheme && (f.uri.path === root.path || f.uri.path.startsWith(prefix)));
  }

  private async terminal(): Promise<MentionAttachment> {
    const terminal = vscode.window.activeTerminal;
    const record = terminal ? this.terminals.lastOf(terminal) : undefined;
    if (!terminal || !record) {
      const why = !terminal
        ? "No terminal is active."
        : terminal.shellIntegration
          ? "No command has run in the active terminal since Pi Chat started."
          : "The active terminal has no shell integration, so its commands cannot be read.";
      return { path: "@terminal", mention: "terminal", text: "", note: why };
    }
    if (record.ended) await Promise.race([record.readDone, new Promise((r) => setTimeout(r, OUTPUT_SETTLE_MS))]);
    const lines = record.output.replace(/\r\n?/g, "\n").split("\n").map(cleanLine);
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    const shown = lines.slice(-MAX_TERMINAL_LINES);
    const status = !record.ended ? "It is still running." : record.exitCode === undefined ? "Its exit code is not known." : `Exit code: ${record.exitCode}.`;
    const cut =
      shown.length < lines.length || record.cut ? ` Only the last ${shown.length} lines of its output are shown (the cap is ${MAX_TERMINAL_LINES}).` : "";
    return { path: "@terminal", mention: "terminal", text: `$ ${record.command}\n${shown.join("\n")}`, note: `${status}${cut}` };
  }
}
