// Every tool a chat's agent can call, by name, in one table: the words a card's head and the
// announcements use for it, which card draws it, which gate asks before it runs, and whether it
// needs commands to be allowed (not in Restricted Mode). The cards (webview/cards/tool-text.ts,
// discovery-cards.tsx), the session's gates (src/core/session/tool-gates.ts) and the docs' tool
// table read it; test/unit/shared/tool-names.test.ts holds every tool the session builds to a row.

/** Which card draws a call: a file's read or edit, a discovery result list, a command run, an MCP call, the task list's line, or the plain card. */
export type ToolCardKind = "file" | "discovery" | "command" | "mcp" | "tasks" | "plan" | "plain";

/** The gates a call can pass in src/core/session/tool-gates.ts (an MCP tool is recognised by its name's prefix; plan mode decides first, on every tool). */
export type ToolGateKind = "edit" | "command" | "mcp" | "plan";

export interface ToolNameRow {
  /** What a call does, in words, before its target: "Read src/a.ts". Absent: the card shows the tool's name. */
  verb?: string;
  /** A discovery card's words before what was asked: "Search "port": 12 matches". */
  askVerb?: string;
  card: ToolCardKind;
  /** The gate that decides each call before it runs; absent: it runs ungated (it only reads). */
  gated?: Exclude<ToolGateKind, "mcp" | "plan">;
  /** Offered only where commands may run (a trusted folder on disk). */
  needsCommands?: true;
  /** Offered in plan mode: it reads or discovers, or only writes the chat's own list. Every other tool is refused there. */
  inPlanMode?: true;
  /** Offered in plan mode only: in act mode it would cost every request its declaration for nothing. */
  onlyInPlanMode?: true;
}

/** Our own tools. MCP servers' tools are named `mcp__<server>__<tool>` (MCP_TOOL_PREFIX) and have no row. */
export const TOOL_NAMES = {
  read_file: { verb: "Read", card: "file", inPlanMode: true },
  edit_file: { verb: "Edit", card: "file", gated: "edit" },
  list_files: { verb: "List", askVerb: "List", card: "discovery", inPlanMode: true },
  find_files: { verb: "Find files", askVerb: "Find files", card: "discovery", inPlanMode: true },
  search: { verb: "Search for", askVerb: "Search", card: "discovery", inPlanMode: true },
  run_command: { verb: "Run", card: "command", gated: "command", needsCommands: true },
  command_output: { card: "plain", needsCommands: true },
  todo: { verb: "Update the task list", card: "tasks", inPlanMode: true },
  propose_plan: { verb: "Propose a plan", card: "plan", inPlanMode: true, onlyInPlanMode: true },
} as const satisfies Record<string, ToolNameRow>;

export type ToolName = keyof typeof TOOL_NAMES;

/** Prefix of every MCP tool name (pi's naming: `mcp__<server>__<tool>`); none of ours has it. */
export const MCP_TOOL_PREFIX = "mcp__";

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}

/** The row of one of our tools; undefined for an MCP tool or a name we do not know. */
export function toolRow(name: string): ToolNameRow | undefined {
  return Object.hasOwn(TOOL_NAMES, name) ? TOOL_NAMES[name as ToolName] : undefined;
}

/** The card that draws a call of `name`. */
export function toolCardKind(name: string): ToolCardKind {
  return toolRow(name)?.card ?? (isMcpToolName(name) ? "mcp" : "plain");
}

/** The gate a call of `name` passes before it runs, if any. */
export function toolGateKind(name: string): ToolGateKind | undefined {
  return toolRow(name)?.gated ?? (isMcpToolName(name) ? "mcp" : undefined);
}

/** Whether plan mode offers the tool: ours that say so; never an MCP tool (a server's read-only hint is its own word). */
export function offeredInPlanMode(name: string): boolean {
  return toolRow(name)?.inPlanMode === true;
}

/** Whether act mode offers the tool: all but those for plan mode only. */
export function offeredInActMode(name: string): boolean {
  return toolRow(name)?.onlyInPlanMode !== true;
}

/** The names of the tools of one card kind (the discovery cards' set). */
export function toolNamesOfCard(card: ToolCardKind): ReadonlySet<string> {
  return new Set(Object.entries(TOOL_NAMES as Record<string, ToolNameRow>).flatMap(([name, row]) => (row.card === card ? [name] : [])));
}
