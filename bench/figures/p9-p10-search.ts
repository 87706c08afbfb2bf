// P9 search: the search tool over a generated 10,000-file workspace (the extension's engine,
// ripgrep through the adapter: spawn, JSON parse, sort, cap, format) ÷ ripgrep run directly on the
// same tree with its plain output. Beside it the portable engine's own ratio. Sides alternate.
// P10 bounded output: the text list_files and search return on the 10,000-file tree ÷ on a
// 100-file tree of the same shape, in tokens (~4 characters each): what the model pays for a look
// at a big repository compared with a small one.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createListFilesTool, createNodeWorkspaceFs, createPortableSearch, createSearchTool } from "../../src/core/tools";
import { createRipgrepSearch } from "../../src/host/adapters/ripgrep-search";
import { generateTree } from "../../test/support/workspace-tree";
import { now, summarize, type Summary } from "../lib/stats";

export const RG = "/usr/bin/rg";
/** A search a model makes to find a setting: ~8,000 matching lines on the big tree (below the 10,000 stop). */
export const P9_QUERY = "listenPort";

export interface P9Result {
  ratio: Summary;
  toolMs: Summary;
  rgMs: Summary;
  portableRatio: Summary;
  portableMs: Summary;
  matches: number;
  files: number;
  goal: number;
}

export interface P10Result {
  list: { big: number; small: number; ratio: number };
  search: { big: number; small: number; ratio: number };
  listDefault: { big: number; small: number; ratio: number };
  goal: number;
  files: { big: number; small: number };
}

function rgDirect(cwd: string, query: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(RG, ["--no-config", "--ignore-case", "--fixed-strings", "--", query, "."], { cwd, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.resume(); // read and drop the output, as a terminal would take it
    child.on("error", reject);
    child.on("close", () => resolve(now() - t0));
  });
}

/** P9 on `files` files; `portable` times the portable engine beside it (too slow to matter at 100,000). */
/**
 * A setting looked up by its value: a handful of lines even at 100,000 files, so the tool never
 * reaches its 10,000-match stop and reads the whole tree, as ripgrep does (like for like).
 */
export const P9_RARE_QUERY = "listenPort = 4242";

/** Trees already generated in this process, by folder: a second query on the same size reuses one. */
const trees = new Map<string, ReturnType<typeof generateTree>>();

function treeAt(root: string, files: number): ReturnType<typeof generateTree> {
  let tree = trees.get(root);
  if (!tree) {
    mkdirSync(root);
    tree = generateTree(root, files);
    trees.set(root, tree);
  }
  return tree;
}

export async function runP9(dir: string, log: (line: string) => void, runs = 9, files = 10_000, portable = true, query = P9_QUERY): Promise<P9Result> {
  const root = join(dir, `p9-tree-${files}`);
  const tree = treeAt(root, files);
  const fs = createNodeWorkspaceFs(root);
  const viaRg = createSearchTool(fs, { root, backend: createRipgrepSearch({ rgPath: RG, folderPath: root }) });
  const viaPortable = createSearchTool(fs, { root, backend: createPortableSearch(fs) });
  // Warm the page cache and both paths once.
  const first = await viaRg.execute("w", { query });
  await rgDirect(root, query);
  if (portable) await viaPortable.execute("w", { query });
  const ratios: number[] = [];
  const toolMs: number[] = [];
  const rgMs: number[] = [];
  const pRatios: number[] = [];
  const pMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    let tool: number;
    let rg: number;
    if (run % 2 === 0) {
      const t0 = now();
      await viaRg.execute("r", { query });
      tool = now() - t0;
      rg = await rgDirect(root, query);
    } else {
      rg = await rgDirect(root, query);
      const t0 = now();
      await viaRg.execute("r", { query });
      tool = now() - t0;
    }
    ratios.push(tool / rg);
    toolMs.push(tool);
    rgMs.push(rg);
    let portableNote = "";
    if (portable) {
      const t1 = now();
      await viaPortable.execute("p", { query });
      const portableMs = now() - t1;
      pRatios.push(portableMs / rg);
      pMs.push(portableMs);
      portableNote = `; portable ${portableMs.toFixed(0)} ms = ${(portableMs / rg).toFixed(2)}`;
    }
    log(
      `  P9 run ${run + 1}/${runs} (${files} files, "${query}"): tool ${tool.toFixed(0)} ms, rg ${rg.toFixed(0)} ms = ${(tool / rg).toFixed(2)}${portableNote}`,
    );
  }
  return {
    ratio: summarize(ratios),
    toolMs: summarize(toolMs),
    rgMs: summarize(rgMs),
    portableRatio: summarize(pRatios.length > 0 ? pRatios : [Number.NaN]),
    portableMs: summarize(pMs.length > 0 ? pMs : [Number.NaN]),
    matches: first.details.total,
    files: tree.allFiles.length,
    goal: 1.5,
  };
}

const tokens = (text: string): number => Math.ceil(text.length / 4);
const textOf = (r: { content: { type: string; text?: string }[] }): string => r.content.map((c) => c.text ?? "").join("");

export async function runP10(dir: string, log: (line: string) => void): Promise<P10Result> {
  const sizes = { big: 10_000, small: 100 };
  const out: Record<"big" | "small", { list: number; search: number; listDefault: number }> = {
    big: { list: 0, search: 0, listDefault: 0 },
    small: { list: 0, search: 0, listDefault: 0 },
  };
  for (const side of ["big", "small"] as const) {
    const root = join(dir, `p10-${side}`);
    mkdirSync(root);
    generateTree(root, sizes[side]);
    const fs = createNodeWorkspaceFs(root);
    const list = createListFilesTool(fs, { root });
    const search = createSearchTool(fs, { root, backend: createRipgrepSearch({ rgPath: RG, folderPath: root }) });
    // "Show me everything" and a common word: the requests whose answers would grow with the tree.
    out[side].list = tokens(textOf(await list.execute("l", { depth: 20 })));
    out[side].listDefault = tokens(textOf(await list.execute("l", {})));
    out[side].search = tokens(textOf(await search.execute("s", { query: "port" })));
    log(`  P10 ${side}: list ${out[side].list} tokens (default depth ${out[side].listDefault}), search ${out[side].search} tokens`);
  }
  const pair = (k: "list" | "search" | "listDefault") => ({ big: out.big[k], small: out.small[k], ratio: out.big[k] / out.small[k] });
  return { list: pair("list"), search: pair("search"), listDefault: pair("listDefault"), goal: 1.2, files: sizes };
}
