// The composer's two lists on the host: the `@` list and what a mention carries (made, and
// out/composer.js loaded, at the first need), and the `/` list of the chat's actions, templates
// and skills (read anew each time, workspace ones only when trusted).
import type * as vscode from "vscode";
import type { ChatServiceOptions } from "../../core/chat-service";
import type { WorkspaceFileSystem } from "../../core/tools";
import type { LibraryPlace, WorkspaceMentions } from "./composer-bundle";
import { loadComposer } from "./composer-loader";
import { TerminalCommands } from "./terminal-commands";
import type { WorkspacePaths } from "../adapters/workspace-paths";
import { workspaceTrusted } from "../settings";
import type { ViewPort } from "../views/view-port";

export interface ComposerListsOptions {
  fs: WorkspaceFileSystem;
  /** The search engine and VS Code's excludes (the `@` list skips what they skip). */
  discovery?: ChatServiceOptions["discovery"];
  paths: WorkspacePaths;
  view: ViewPort;
  log: (line: string) => void;
}

export class ComposerLists implements vscode.Disposable {
  private mentionsMade: WorkspaceMentions | undefined;
  /** Each terminal's last command, recorded from the start for `@terminal`. */
  private readonly terminalCommands: TerminalCommands;

  constructor(private readonly options: ComposerListsOptions) {
    this.terminalCommands = new TerminalCommands(options.log);
  }

  /** The `@` list and mentions, made at the first need (loading out/composer.js). */
  get mentions(): WorkspaceMentions {
    this.mentionsMade ??= new (loadComposer().WorkspaceMentions)(
      this.options.fs,
      this.options.discovery?.rules ?? (() => ({})),
      this.options.paths,
      this.options.log,
      this.terminalCommands,
    );
    return this.mentionsMade;
  }

  /** The tools' path prefix of each workspace folder ("" with one folder). */
  folderPrefixes(): string[] {
    return this.options.paths.multiRoot ? this.options.paths.folders.map((f) => f.name) : [""];
  }

  /** Where the prompt templates and skills are read (workspace ones only when trusted). */
  libraryPlace(): LibraryPlace {
    return { fs: this.options.fs, folders: this.folderPrefixes(), trusted: workspaceTrusted(), log: this.options.log };
  }

  /** The `/` list: the chat's actions, the templates and the skills, read now. */
  async sendCommandList(): Promise<void> {
    this.options.view.send({ type: "composer/commands", ...(await loadComposer().commandList(this.libraryPlace())) });
  }

  /** The draft `/template args` expanded, or undefined when it names no template. */
  expandDraft(text: string): Promise<{ name: string; text: string } | undefined> {
    return loadComposer().expandDraft(this.libraryPlace(), text);
  }

  dispose(): void {
    this.mentionsMade?.dispose();
    this.terminalCommands.dispose();
  }
}
