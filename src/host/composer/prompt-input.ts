// The one path of everything the composer sends: Enter (a prompt), Queue and Steer while a reply
// runs. The text is parsed once by core/composer-input.ts (action | slash | userCommand | prompt);
// the chat's own actions run here, a template goes back to the box expanded, a `!command` is run
// in the folder the user picks, and a prompt goes with its images and attachments.
import * as vscode from "vscode";
import { type ChatActionName, type ComposerInput, parseComposerInput } from "../../core/composer-input";
import type { UserCommandText } from "../../core/shell/user-command";
import type { MentionRef } from "../../shared/mentions";
import type { PromptImage } from "../../shared/protocol";
import { attachImages } from "../adapters/images";
import { loadComposer } from "./composer-loader";
import type { WorkspacePaths } from "../adapters/workspace-paths";
import type { ChatScreen } from "../chat-screen";
import type { ChatModels } from "../models/resolve-model";
import { chooseUserCommandFolder } from "../shell/command-folder";
import type { ViewPort } from "../views/view-port";
import type { ChatStatus } from "../views/view-status";
import type { Attachments } from "./attachments";
import type { ComposerLists } from "./composer-lists";

export interface PromptInputOptions {
  screen: ChatScreen;
  status: ChatStatus;
  models: ChatModels;
  lists: ComposerLists;
  attachments: Attachments;
  paths: WorkspacePaths;
  view: ViewPort;
}

export class PromptInput {
  constructor(private readonly options: PromptInputOptions) {}

  /** `verbatim`: the text is a template the composer already expanded: sent as it reads, never taken as a command. */
  async prompt(text: string, images: readonly PromptImage[] = [], mentions: readonly MentionRef[] = [], verbatim = false): Promise<void> {
    const { screen } = this.options;
    // Checked before the attachments are taken, so a refused prompt keeps them.
    if (screen.currentSession.running) throw new Error("A reply is still being written. Stop it or wait for it to finish.");
    this.options.status.clearNotes();
    const input = await this.resolveInput(parseComposerInput(text, verbatim));
    if (input.kind === "done") return;
    // `!cmd` / `!!cmd`: the user runs it; attachments wait for the next prompt.
    if (input.kind === "userCommand") {
      const userCommand = input.command;
      if (images.length > 0) throw new Error("A !command runs on its own: send the images with a prompt, or remove them to run the command.");
      // With several folders: the active editor's folder, or the user's pick (none picked: nothing runs).
      const folder = await chooseUserCommandFolder(this.options.paths, userCommand.command);
      if (!folder) {
        // Dismissed by a stray Escape as often as on purpose: the typed command is not lost.
        this.options.view.send({ type: "composer/restore", text });
        return;
      }
      await screen.writeCurrentChat(screen.currentChatId);
      return screen.currentSession.runUserCommand(userCommand, folder.cwd);
    }
    text = input.text;
    if (text.trim() === "" && images.length === 0) return;
    const session = screen.currentSession;
    const stored = await attachImages(screen.service, session.id, images, () => this.options.models.imageInput(session.model, true));
    const attachments = await this.options.attachments.take(mentions);
    // Remember it now: if VS Code dies during this first run, the reload still finds the chat.
    await screen.writeCurrentChat(screen.currentChatId);
    await screen.currentSession.prompt(text, attachments, stored);
  }

  /**
   * A follow-up or steer typed while the reply runs; the attached files and images go with it
   * (sent as a prompt if the run ended meanwhile).
   */
  async queueInput(
    kind: "followUp" | "steer",
    text: string,
    images: readonly PromptImage[],
    mentions: readonly MentionRef[] = [],
    verbatim = false,
  ): Promise<void> {
    const { screen } = this.options;
    const parsed = parseComposerInput(text, verbatim);
    if (parsed.kind === "userCommand") throw new Error("A !command runs when Pi is not writing: send it after this reply (or Stop it first).");
    if (parsed.kind === "action") throw new Error(`/${parsed.name} runs when Pi is not writing: send it after this reply (or Stop it first).`);
    const input = await this.resolveInput(parsed);
    if (input.kind !== "prompt") return;
    text = input.text;
    if (text.trim() === "" && images.length === 0) return;
    const session = screen.currentSession;
    const stored = await attachImages(screen.service, session.id, images, () => this.options.models.imageInput(session.model, true));
    const attachments = await this.options.attachments.take(mentions);
    await screen.currentSession.send(kind, text, attachments, stored);
  }

  /**
   * What the parsed input stands for: the chat's own actions run here (`done`); a template the
   * user has not read yet goes back into the box, expanded (`done`: nothing a repository's template
   * says is sent or run unseen); a skill gives the request that is sent; a `!command` is the user's
   * to run; anything else is a prompt.
   */
  private async resolveInput(
    input: ComposerInput,
  ): Promise<{ kind: "done" } | { kind: "userCommand"; command: UserCommandText } | { kind: "prompt"; text: string }> {
    switch (input.kind) {
      case "action":
        await this.runAction(input.name, input.rest);
        return { kind: "done" };
      case "userCommand":
        return input;
      case "prompt":
        return input;
      case "slash": {
        // A template or skill is a request to Pi: the bundle is needed now anyway.
        const resolved = await loadComposer().resolveSlash(this.options.lists.libraryPlace(), input.name, input.rest);
        if (resolved?.kind === "template") {
          this.options.view.send({ type: "composer/restore", text: resolved.text, expanded: resolved.name });
          return { kind: "done" };
        }
        return { kind: "prompt", text: resolved?.text ?? input.text };
      }
    }
  }

  /** `/new`, `/compact`…: the chat's own actions. */
  private async runAction(name: ChatActionName, rest: string): Promise<void> {
    switch (name) {
      case "new":
        await this.options.screen.newChat();
        return;
      case "compact":
        await vscode.commands.executeCommand("piChat.compact", { instructions: rest });
        return;
      case "model":
        await vscode.commands.executeCommand("piChat.selectChatModel");
        return;
      case "export":
        await vscode.commands.executeCommand("piChat.exportChat", this.options.screen.currentChatId);
        return;
      case "history":
        await vscode.commands.executeCommand("piChat.showHistory");
        return;
      case "help":
        // The view lists the `/` commands it is sent now (templates and skills included), the mentions and the keys.
        await this.options.lists.sendCommandList();
        this.options.view.send({ type: "view/help" });
        return;
    }
  }
}
