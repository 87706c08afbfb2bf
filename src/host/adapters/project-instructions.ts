// AGENTS.md / CLAUDE.md of every workspace folder into each request's system prompt, unless
// the user turned it off (piChat.projectInstructions) or the workspace is not trusted: in
// restricted mode a cloned repository's instructions are not read at all.
import * as vscode from "vscode";
import { loadProjectInstructions, withProjectInstructions } from "../../core/context/project-instructions";
import type { RequestContextStep } from "../../core/session/types";
import { setting } from "../settings";
import { createVscodeWorkspaceFs } from "./vscode-fs";

export function projectInstructionsEnabled(): boolean {
  return vscode.workspace.isTrusted && setting("projectInstructions");
}

/** Read for every request, so an edit to the file counts from the next one. */
export function projectInstructionsStep(log: (line: string) => void): RequestContextStep {
  return async (messages) => {
    if (!projectInstructionsEnabled()) return messages;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ name: folder.name, fs: createVscodeWorkspaceFs(folder.uri) }));
    const loaded = await loadProjectInstructions(folders, { log });
    for (const file of loaded.files) if (file.omitted) log(`project instructions: ${file.folder}/${file.file}: ${file.omitted}`);
    return withProjectInstructions(messages, loaded.section);
  };
}
