// list_files: a folder as a tree, folders first, ignored entries left out. Read-only, no approval.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { bool, int, obj, opt, str, type Static } from "@earendil-works/pi-schema";
import { capLines, capReason, type OutputCaps } from "./output-caps";
import { displayPath, resolveDiscoveryTarget } from "./file-access";
import { throwIfAborted, WorkspaceToolError } from "./tool-error";
import { MAX_WALK_ENTRIES, walkWorkspace, type WalkEntry, type WalkRules } from "./workspace-walk";
import type { WorkspaceFileSystem } from "./workspace-fs";

/**
 * Entries shown, and their bytes. Deliberately near what a small project's whole tree takes: a
 * listing of a 10,000-file repository costs the model about what a 100-file one does, and the
 * folders cut short say how much they hold.
 */
export const LIST_CAPS: OutputCaps = { maxLines: 100, maxBytes: 2000 };
export const DEFAULT_LIST_DEPTH = 3;
export const MAX_LIST_DEPTH = 20;

export const listFilesParameters = obj({
  path: opt(str({ description: "Folder to list, relative to the workspace root. Default: the workspace root." })),
  depth: opt(int({ minimum: 1, maximum: MAX_LIST_DEPTH, description: `Levels to descend (1: only the folder's own entries). Default ${DEFAULT_LIST_DEPTH}.` })),
  includeIgnored: opt(bool({ description: "Also list what .gitignore excludes and node_modules. Default false." })),
});

export type ListFilesParams = Static<typeof listFilesParameters>;

export interface ListFilesDetails {
  path: string;
  depth: number;
  /** Shown entries in display order; folders end with "/". */
  entries: { path: string; type: "file" | "directory" | "symlink" | "other" }[];
  /** Entries within the depth, shown or not. */
  total: number;
  truncated: boolean;
}

export interface ListFilesToolOptions {
  root?: string;
  rules?: () => WalkRules;
  caps?: OutputCaps;
}

interface Node {
  readonly entry: WalkEntry;
  readonly children: Node[];
  /** Entries below it within the depth (for a folder cut short: what it holds). */
  below: number;
}

export function createListFilesTool(fs: WorkspaceFileSystem, options: ListFilesToolOptions = {}): AgentTool<typeof listFilesParameters, ListFilesDetails> {
  const caps = options.caps ?? LIST_CAPS;
  return {
    name: "list_files",
    label: "List files",
    description:
      "List a folder of the workspace as a tree (folders first, ending in /), leaving out what .gitignore and the editor exclude, .git and node_modules. " +
      `At most ${caps.maxLines} entries; a folder cut short shows (+N), the entries it holds beyond those shown: list it with path to see inside.`,
    parameters: listFilesParameters,
    // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the tool's whole answer (walk, caps, text) in the order the model reads it
    async execute(_toolCallId, params, signal): Promise<AgentToolResult<ListFilesDetails>> {
      throwIfAborted(signal);
      const target = await resolveDiscoveryTarget(fs, options.root, params.path, signal);
      if (target.type !== "directory") {
        throw new WorkspaceToolError("not_a_file", `${target.path} is a file, not a folder. Use read_file to read it, or list its folder.`);
      }
      const depth = Math.min(params.depth ?? DEFAULT_LIST_DEPTH, MAX_LIST_DEPTH);
      const rules = { ...(options.rules?.() ?? {}), ...(params.includeIgnored ? { useIgnoreFiles: false } : {}) };
      const state = { truncated: false };
      // Breadth first: when the cap cuts, the top levels are whole and the deep ones are counted.
      const nodes = new Map<string, Node>();
      const top: Node[] = [];
      const order: Node[] = [];
      for await (const entry of walkWorkspace(fs, { ...rules, start: target.realPath, maxDepth: depth, ...(signal ? { signal } : {}) }, state)) {
        const node: Node = { entry, children: [], below: 0 };
        nodes.set(entry.path, node);
        order.push(node);
        const parentPath = entry.path.slice(0, entry.path.lastIndexOf("/"));
        const parent = entry.depth > 1 ? nodes.get(parentPath) : undefined;
        if (parent) parent.children.push(node);
        else top.push(node);
        for (let p = parent; p; p = p.entry.depth > 1 ? nodes.get(p.entry.path.slice(0, p.entry.path.lastIndexOf("/"))) : undefined) p.below++;
      }
      const total = order.length;

      // Shown: the first entries breadth first, as many as the caps allow (lines are about the same size).
      const lineOf = (node: Node, cut: boolean): string => {
        const indent = "  ".repeat(node.entry.depth - 1);
        const name = node.entry.type === "directory" ? `${node.entry.name}/` : node.entry.type === "symlink" ? `${node.entry.name}@` : node.entry.name;
        const hidden = cut ? hiddenBelow(node) : 0;
        const held = hidden > 0 ? ` (+${hidden})` : "";
        return `${indent}${name}${held}`;
      };
      const budget = capLines(
        order.map((n) => lineOf(n, false)),
        caps,
      ).shown;
      // Whole levels while they fit; the level that does not is shared out among its folders one
      // entry at a time, so a folder of 100 images cannot crowd out its siblings.
      const chosen: Node[] = [];
      for (let depth = 1; chosen.length < budget; depth++) {
        const level = order.filter((n) => n.entry.depth === depth);
        if (level.length === 0) break;
        if (chosen.length + level.length <= budget) {
          chosen.push(...level);
          continue;
        }
        const byParent = new Map<string, Node[]>();
        for (const n of level) {
          const parent = n.entry.path.slice(0, Math.max(0, n.entry.path.lastIndexOf("/")));
          byParent.set(parent, [...(byParent.get(parent) ?? []), n]);
        }
        const queues = [...byParent.values()];
        for (let i = 0; chosen.length < budget; i++) {
          const queue = queues[i % queues.length]!;
          const next = queue.shift();
          if (next) chosen.push(next);
          if (queues.every((q) => q.length === 0)) break;
        }
        break;
      }
      const shownSet = new Set(chosen);
      const hiddenBelow = (node: Node): number => node.children.reduce((sum, c) => sum + (shownSet.has(c) ? hiddenBelow(c) : 1 + c.below), 0);
      const lines: string[] = [];
      const entries: ListFilesDetails["entries"] = [];
      const sortNodes = (list: Node[]): Node[] =>
        [...list].sort((a, b) => Number(b.entry.type === "directory") - Number(a.entry.type === "directory") || (a.entry.name < b.entry.name ? -1 : 1));
      const render = (list: Node[]): void => {
        for (const node of sortNodes(list)) {
          if (!shownSet.has(node)) continue;
          const cut = node.children.some((c) => !shownSet.has(c));
          lines.push(lineOf(node, cut));
          entries.push({ path: displayPath(target, node.entry.path), type: node.entry.type });
          render(node.children);
        }
      };
      render(top);
      const where = target.path === "." ? "The workspace" : target.path;
      let text = total === 0 ? `${where} is empty (or everything in it is ignored; includeIgnored lists it all).` : lines.join("\n");
      if (budget < total) {
        const capped = capLines(
          order.map((n) => lineOf(n, false)),
          caps,
        );
        text += `\n\n[${total - budget} more entries not shown (${capReason(capped, caps, "entry")}); (+N) is what a folder holds beyond those shown. List a subfolder with path to see inside it.]`;
      }
      if (state.truncated) text += `\n[The walk stopped after ${MAX_WALK_ENTRIES} entries.]`;
      return {
        content: [{ type: "text", text }],
        details: { path: target.path, depth, entries, total, truncated: budget < total || state.truncated },
      };
    },
  };
}
