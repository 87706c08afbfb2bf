// Reads every piChat setting, as settings-schema.ts defines it (type, default, scope). A
// workspace is untrusted input (a cloned repository brings its own .vscode/settings.json), so the
// settings that steer where requests go, whether edits are asked about and how commands run are
// read from the user's own settings only: package.json declares them `"scope": "application"`
// (VS Code then ignores workspace values), and this module reads the user value itself as well,
// so an editor that does not honour the scope still cannot be steered by a folder.
import type { LeanModeSetting } from "../core/context/lean-mode";
import type { McpOnDemandSetting } from "../core/mcp/tool-search";
import * as vscode from "vscode";
import type { CompactionSettings } from "../core/context/compaction";
import type { ApprovalMode } from "../core/permissions";
import type { TitleFromModel } from "../core/title-suggestion";
import { hasSettingType, PI_CHAT_SETTINGS, type PiChatSetting, type SettingValue } from "./settings-schema";

/**
 * A piChat setting's value, or its default when unset or of another type. Application-scoped
 * settings: the user's value only, never a workspace's or folder's.
 */
export function setting<K extends PiChatSetting>(key: K): SettingValue<K> {
  const definition = PI_CHAT_SETTINGS[key];
  const config = vscode.workspace.getConfiguration("piChat");
  const value = definition.scope === "application" ? config.inspect<unknown>(key)?.globalValue : config.get<unknown>(key);
  return (hasSettingType(definition.type, value) ? value : definition.default) as SettingValue<K>;
}

/** Writes a setting into the user's settings (undefined removes it); the model picker's choice. */
export async function updateUserSetting(key: PiChatSetting, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration("piChat").update(key, value, vscode.ConfigurationTarget.Global);
}

export function approvalModeSetting(): ApprovalMode {
  return setting("approvalMode") === "auto" ? "auto" : "ask";
}

export function protectedFilesSetting(): readonly string[] {
  return setting("protectedFiles").filter((p): p is string => typeof p === "string");
}

export function titleFromModelSetting(): TitleFromModel {
  const value = setting("titleFromModel");
  return value === "always" || value === "never" ? value : "cloud";
}

/** piChat.leanMode: "auto" (below the window threshold), "on" or "off"; anything else is "auto". */
export function leanModeSetting(): LeanModeSetting {
  const value = setting("leanMode");
  return value === "on" || value === "off" ? value : "auto";
}

/** piChat.mcp.toolsOnDemand: "auto", "always" or "never"; anything else is "auto". */
export function mcpOnDemandSetting(): McpOnDemandSetting {
  const value = setting("mcp.toolsOnDemand");
  return value === "always" || value === "never" ? value : "auto";
}

/** piChat.compaction.*, with the defaults for anything out of range. */
export function readCompactionSettings(): CompactionSettings {
  const positive = (key: "compaction.reserveTokens" | "compaction.keepRecentTokens") => {
    const value = setting(key);
    return value > 0 ? Math.floor(value) : PI_CHAT_SETTINGS[key].default;
  };
  return {
    enabled: setting("compaction.enabled"),
    reserveTokens: positive("compaction.reserveTokens"),
    keepRecentTokens: positive("compaction.keepRecentTokens"),
  };
}

/** The `true` keys of VS Code's own files.exclude or search.exclude (`when` clauses cannot be evaluated here and are skipped). */
export function excludeGlobsSetting(section: "files" | "search", folder: vscode.Uri | undefined): string[] {
  const value = vscode.workspace.getConfiguration(section, folder).get<Record<string, unknown>>("exclude") ?? {};
  return Object.entries(value)
    .filter(([glob, on]) => on === true && typeof glob === "string")
    .map(([glob]) => glob);
}

/** Restricted Mode (an untrusted folder): every edit is asked about. */
export function workspaceTrusted(): boolean {
  return vscode.workspace.isTrusted;
}
