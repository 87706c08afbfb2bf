// Lean mode: a small request for a small window. A short system prompt, the essential tools
// (read, edit, search, run) with one-line descriptions and no parameter prose, and MCP tools
// always deferred (mcp/tool-search.ts). Chosen by `piChat.leanMode`: "auto" turns it on for a
// model whose window is below LEAN_WINDOW_TOKENS (the window the provider layer reports).
import type { AgentMessage, AgentTool } from "@earendil-works/pi-agent-core";

export type LeanModeSetting = "auto" | "on" | "off";
export const LEAN_MODE_SETTINGS: readonly LeanModeSetting[] = ["auto", "on", "off"];

/** "auto" is lean below this window: 16k holds a normal first request (~2k) but little conversation beside it. */
export const LEAN_WINDOW_TOKENS = 16_384;

export function isLeanMode(setting: LeanModeSetting | undefined, contextWindow: number): boolean {
  if (setting === "on") return true;
  if (setting === "off") return false;
  return contextWindow > 0 && contextWindow < LEAN_WINDOW_TOKENS;
}

export const LEAN_SYSTEM_PROMPT = [
  "You are Pi Chat, a coding assistant in the user's editor. Paths are relative to the workspace root.",
  "Search to locate code, read a file before editing it, run tests when you can. The user approves every edit and command.",
  "Answer concisely, in Markdown.",
].join("\n");

/** The essential tools and the one line each is declared with in lean mode. */
export const LEAN_TOOL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  read_file: "Read a file (or a range of lines).",
  edit_file: "Replace oldText (copied exactly from the file, once in it) with newText.",
  search: "Find text or a regex across the workspace's files.",
  run_command: "Run a shell command in the workspace (the user approves it).",
};

/** The run's tools in lean mode: the essential ones, with short descriptions and no parameter prose. */
export function leanTools(tools: readonly AgentTool[]): AgentTool[] {
  return tools.flatMap((tool) => {
    const description = LEAN_TOOL_DESCRIPTIONS[tool.name];
    return description === undefined ? [] : [{ ...tool, description, parameters: withoutDescriptions(tool.parameters) as AgentTool["parameters"] }];
  });
}

/** A copy of a JSON schema without its `description` fields (the names and types say enough). */
function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description" && typeof value === "string") continue;
    // A property named "description" is a name, not prose: keep it (only string values are dropped above).
    out[key] = withoutDescriptions(value);
  }
  return out;
}

/** The system prompt's section listing the skills (the host's composer/prompt-library.ts writes it). */
export const SKILLS_SECTION = "skills";

/**
 * The skills section by name only: each row `- name: description (where it is)` becomes
 * `- name (where it is)`; the model reads a skill's SKILL.md when a name fits the task.
 */
export function skillsByName(section: string): string {
  const [, ...rows] = section.split("\n");
  return [
    "Skills (read a skill's SKILL.md when its name fits the task):",
    ...rows.map((row) => {
      const match = /^- ([^:]+): .*?( \([^()]*\))?$/.exec(row);
      return match ? `- ${match[1]}${match[2] ?? ""}` : row;
    }),
  ].join("\n");
}

/** The request's leading system message with the lean prompt in place of the chat's (sections and tools kept). */
export function withLeanPrompt(messages: AgentMessage[]): AgentMessage[] {
  const first = messages[0];
  if (first?.role !== "system") return messages;
  const skills = first.sections?.[SKILLS_SECTION];
  const sections = typeof skills === "string" ? { sections: { ...first.sections, [SKILLS_SECTION]: skillsByName(skills) } } : {};
  return [{ ...first, content: LEAN_SYSTEM_PROMPT, ...sections }, ...messages.slice(1)];
}
