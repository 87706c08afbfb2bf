// The settings that steer where requests go or whether edits are asked about. A workspace is
// untrusted input (a cloned repository brings its own .vscode/settings.json), so these are read
// from the user's own settings only: package.json declares them `"scope": "application"` (VS Code
// then ignores workspace values), and this module reads the user value itself as well, so an
// editor that does not honour the scope still cannot be steered by a folder.
import * as vscode from "vscode";
import { DEFAULT_PROTECTED_FILES, type ApprovalMode } from "../core/permissions";

/** Settings only the user may set (user settings.json), never a workspace or folder. */
export const USER_ONLY_SETTINGS = ["provider", "baseUrl", "approvalMode", "protectedFiles", "commands.timeoutSeconds", "commands.useTerminal"] as const;
export type UserOnlySetting = (typeof USER_ONLY_SETTINGS)[number];

/** The user's value of a piChat setting, or its default; workspace and folder values are ignored. */
export function userSetting<T>(key: UserOnlySetting): T | undefined {
  const inspected = vscode.workspace.getConfiguration("piChat").inspect<T>(key);
  return inspected?.globalValue ?? inspected?.defaultValue;
}

export function approvalModeSetting(): ApprovalMode {
  return userSetting<string>("approvalMode") === "auto" ? "auto" : "ask";
}

export function protectedFilesSetting(): readonly string[] {
  const value = userSetting<unknown>("protectedFiles");
  if (!Array.isArray(value)) return DEFAULT_PROTECTED_FILES;
  return value.filter((p): p is string => typeof p === "string");
}

/** Restricted Mode (an untrusted folder): every edit is asked about. */
export function workspaceTrusted(): boolean {
  return vscode.workspace.isTrusted;
}
