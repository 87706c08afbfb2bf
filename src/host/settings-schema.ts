// Every piChat setting once: its key, JSON type, default and scope, as package.json's
// `contributes.configuration` declares it (test/unit/settings/manifest.test.ts holds the two
// together). No vscode import, so the unit tests can read it; settings.ts reads values through it.
import { DEFAULT_COMPACTION_SETTINGS } from "../core/context/compaction";
import { DEFAULT_PROTECTED_FILES } from "../core/permissions/protected-paths";
import { DEFAULT_COMMAND_TIMEOUT_SECONDS } from "../core/tools/run-command";

/** Default upper bound of the wait for a file's problems; a warm TypeScript server answers in a few hundred ms. */
export const DEFAULT_PROBLEMS_WAIT_MS = 2000;
/** Default of piChat.mcp.maxTools: too many tool declarations hurt the model and cost tokens. */
export const DEFAULT_MCP_MAX_TOOLS = 60;

/**
 * `application`: only the user's settings count (a workspace is untrusted input; VS Code ignores
 * workspace values and settings.ts reads the user value itself). `window`: VS Code's default scope.
 */
export type SettingScope = "application" | "window";
export type SettingType = "string" | "boolean" | "number" | "integer" | "array";

interface SettingDefinition {
  readonly type: SettingType;
  readonly default: string | boolean | number | readonly string[];
  readonly scope: SettingScope;
}

export const PI_CHAT_SETTINGS = {
  provider: { type: "string", default: "anthropic", scope: "application" },
  model: { type: "string", default: "", scope: "window" },
  baseUrl: { type: "string", default: "", scope: "application" },
  approvalMode: { type: "string", default: "ask", scope: "application" },
  projectInstructions: { type: "boolean", default: true, scope: "window" },
  imageInput: { type: "boolean", default: false, scope: "window" },
  contextWindow: { type: "integer", default: 0, scope: "application" },
  // Parts of a provider's URL (provider-options.ts): user settings only, like piChat.baseUrl.
  "azure.resourceName": { type: "string", default: "", scope: "application" },
  "azure.deployment": { type: "string", default: "", scope: "application" },
  "cloudflare.accountId": { type: "string", default: "", scope: "application" },
  "cloudflare.gatewayId": { type: "string", default: "", scope: "application" },
  titleFromModel: { type: "string", default: "cloud", scope: "window" },
  leanMode: { type: "string", default: "auto", scope: "window" },
  protectedFiles: { type: "array", default: DEFAULT_PROTECTED_FILES, scope: "application" },
  "commands.useTerminal": { type: "boolean", default: true, scope: "application" },
  "commands.timeoutSeconds": { type: "number", default: DEFAULT_COMMAND_TIMEOUT_SECONDS, scope: "application" },
  "compaction.enabled": { type: "boolean", default: DEFAULT_COMPACTION_SETTINGS.enabled, scope: "window" },
  "compaction.reserveTokens": { type: "integer", default: DEFAULT_COMPACTION_SETTINGS.reserveTokens, scope: "window" },
  "compaction.keepRecentTokens": { type: "integer", default: DEFAULT_COMPACTION_SETTINGS.keepRecentTokens, scope: "window" },
  problemsWaitMs: { type: "number", default: DEFAULT_PROBLEMS_WAIT_MS, scope: "window" },
  "mcp.maxTools": { type: "number", default: DEFAULT_MCP_MAX_TOOLS, scope: "application" },
  "mcp.toolsOnDemand": { type: "string", default: "auto", scope: "application" },
} as const satisfies Record<string, SettingDefinition>;

export type PiChatSetting = keyof typeof PI_CHAT_SETTINGS;

type Widen<T> = T extends string ? string : T extends boolean ? boolean : T extends number ? number : T extends readonly unknown[] ? readonly unknown[] : never;
/** The type a setting's value has once read: its default's type (an array's items are still unchecked). */
export type SettingValue<K extends PiChatSetting> = Widen<(typeof PI_CHAT_SETTINGS)[K]["default"]>;

/** Whether a value read from settings.json has the setting's declared type (anything else means its default). */
export function hasSettingType(type: SettingType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "number":
    case "integer":
      return typeof value === "number" && Number.isFinite(value);
    case "array":
      return Array.isArray(value);
  }
}
