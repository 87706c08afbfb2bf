// The bodies of the discovery tools' cards (list_files, find_files, search): what was asked, how
// many results, and the results themselves, each a link that opens the file (at the line, for
// search). `details` comes from the tool and is read defensively, like every card's.
import type { ToolItem } from "../../src/shared/chat-items";
import { FileLink } from "./file-link";
import { plural } from "../../src/shared/format";
import { toolNamesOfCard, toolRow } from "../../src/shared/tool-names";

export const DISCOVERY_TOOLS = toolNamesOfCard("discovery");

/** Results drawn per card: the tools cap what they return; this caps what one card paints. */
const MAX_ROWS = 200;

interface SearchRow {
  path: string;
  line: number;
  text: string;
}

interface Discovery {
  /** One line for the card head: the question. */
  asked: string;
  /** "12 matches", "3 files", "40 entries (of 120)". */
  count?: string;
  rows: { path: string; line?: number; label: string; text?: string; folder?: boolean }[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function where(path: string | undefined): string {
  return path && path !== "." ? ` in ${path}` : "";
}

function readSearch(args: Record<string, unknown>, d: Record<string, unknown> | undefined): Discovery {
  const query = str(args.query) ?? "";
  const include = str(d?.include) ?? str(args.include);
  const asked = `${JSON.stringify(query)}${where(str(d?.path) ?? str(args.path))}${include ? ` (${include})` : ""}`;
  const rows: Discovery["rows"] = [];
  const matches = Array.isArray(d?.matches) ? d.matches : [];
  for (const m of matches.slice(0, MAX_ROWS)) {
    const r = record(m);
    const path = str(r?.path);
    const line = count(r?.line);
    if (!path || !line) continue;
    const row: SearchRow = { path, line, text: typeof r?.text === "string" ? r.text : "" };
    rows.push({ path: row.path, line: row.line, label: `${row.path}:${row.line}`, text: row.text });
  }
  const total = count(d?.total);
  const more = d?.incomplete === true ? "+" : "";
  return { asked, ...(total !== undefined ? { count: `${plural(total, "match", "matches")}${more}` } : {}), rows };
}

function readFind(args: Record<string, unknown>, d: Record<string, unknown> | undefined): Discovery {
  const asked = `${str(args.pattern) ?? ""}${where(str(d?.path) ?? str(args.path))}`;
  const files = Array.isArray(d?.files) ? d.files : [];
  const rows = files
    .slice(0, MAX_ROWS)
    .filter((f): f is string => typeof f === "string" && f !== "")
    .map((path) => ({ path, label: path }));
  const total = count(d?.total);
  return { asked, ...(total !== undefined ? { count: plural(total, "file") } : {}), rows };
}

function readList(args: Record<string, unknown>, d: Record<string, unknown> | undefined): Discovery {
  const path = str(d?.path) ?? str(args.path) ?? ".";
  const asked = path === "." ? "workspace" : path;
  const entries = Array.isArray(d?.entries) ? d.entries : [];
  const rows: Discovery["rows"] = [];
  for (const e of entries.slice(0, MAX_ROWS)) {
    const r = record(e);
    const p = str(r?.path);
    if (!p) continue;
    const folder = r?.type === "directory";
    rows.push({ path: p, label: folder ? `${p}/` : p, folder });
  }
  const total = count(d?.total);
  const shown = rows.length;
  return {
    asked,
    ...(total !== undefined
      ? { count: total > shown ? `${plural(shown, "entry", "entries")} of ${total.toLocaleString("en-US")}` : plural(total, "entry", "entries") }
      : {}),
    rows,
  };
}

export function readDiscovery(item: ToolItem): Discovery | undefined {
  if (!DISCOVERY_TOOLS.has(item.name)) return undefined;
  const args = record(item.args) ?? {};
  const d = record(item.details);
  if (item.name === "search") return readSearch(args, d);
  if (item.name === "find_files") return readFind(args, d);
  return readList(args, d);
}

/** A discovery card's name: what was asked and, once done, how many results ("Search \"port\": 12 matches"). */
export function discoveryName(item: ToolItem, discovery: Discovery, status: string): string {
  const outcome = item.status === "success" && discovery.count !== undefined ? discovery.count : status;
  return `${toolRow(item.name)?.askVerb ?? item.name} ${discovery.asked}: ${outcome}`;
}

/** The head's question and count, for a discovery card. */
export function DiscoveryHead({ discovery }: { discovery: Discovery }) {
  return (
    <>
      <code class="tool-arg">{discovery.asked}</code>
      {discovery.count !== undefined && <span class="tool-note discovery-count">{discovery.count}</span>}
    </>
  );
}

/** The results: each file a link (search results open at their line). */
export function DiscoveryResults({ discovery }: { discovery: Discovery }) {
  if (discovery.rows.length === 0) return null;
  return (
    <ul class="discovery-results" aria-label="Results">
      {discovery.rows.map((row, i) => (
        <li key={i} class="discovery-row">
          {row.folder ? (
            <span class="discovery-folder">{row.label}</span>
          ) : (
            <FileLink path={row.path} {...(row.line !== undefined ? { line: row.line } : {})} label={row.label} class="discovery-link" />
          )}
          {row.text !== undefined && row.text !== "" && <code class="discovery-text">{row.text}</code>}
        </li>
      ))}
    </ul>
  );
}
