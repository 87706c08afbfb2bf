// The facts around the chat on screen that the view shows: the snapshot, the status (model,
// setup, storage, Continue, written elsewhere) and the two short notes (the branch left, the model
// changed), which last until the next prompt or chat. Also the meter's model before a run binds one.
import type { ChatModelChoice } from "../../core/transcript";
import type { HostMessageBody, PendingAttachment, ViewStatus } from "../../shared/protocol";
import type { ChatScreen } from "../chat-screen";
import { imageInputStatus } from "../adapters/images";
import { modelLabel, settingsForChat } from "../models/chat-model";
import { loadProviders, loadProvidersWhenIdle, providersIfLoaded, readProviderSettings } from "../models/providers-loader";
import { catalogName, type ChatModels } from "../models/resolve-model";
import type { OtherWindows } from "../other-windows";
import type { ViewPort } from "./view-port";
import { VSCODE_LM } from "../providers/catalog";
import * as vscode from "vscode";
import { knownVscodeModel, knownVscodeModels, listVscodeModels, lmAvailable, onDidListVscodeModels, vscodeModelForMeter } from "../vscode-models/lm-api";

/** How long the view's first paint has before the provider catalog is loaded for the header's model name. */
const CATALOG_DELAY_MS = 1500;

export interface ChatStatusOptions {
  screen: ChatScreen;
  models: ChatModels;
  otherWindows: OtherWindows;
  storageKind: ViewStatus["storage"];
  view: ViewPort;
  /** The files attached for the next prompt (the snapshot carries them). */
  attachments: () => readonly PendingAttachment[];
  log: (line: string) => void;
}

export class ChatStatus {
  private branchNote: string | undefined;
  /** "This chat now uses …": shown after the model changed, until the next prompt or chat. */
  private modelNote: string | undefined;

  constructor(private readonly options: ChatStatusOptions) {
    const { screen } = options;
    screen.onDidChange(() => this.clearNotes());
    screen.onDidShow(() => this.previewMeter(false));
    screen.onDidEndRun(() => this.refresh());
    options.models.onDidReadKeys(() => this.refresh());
    onDidListVscodeModels(() => this.refresh());
  }

  snapshot(): HostMessageBody {
    const session = this.options.screen.currentSession;
    return {
      type: "view/snapshot",
      chatId: session.id,
      title: this.options.screen.chatTitle(session.id),
      state: session.viewState,
      status: this.status(),
      chats: this.options.screen.chatList(),
      attachments: [...this.options.attachments()],
    };
  }

  status(): ViewStatus {
    const session = this.options.screen.currentSession;
    const choice = session.model;
    const settings = settingsForChat(readProviderSettings(), choice);
    const label = modelLabel(settings, choice?.thinkingLevel, catalogName, this.options.models.servedModel(settings));
    // Without the catalog the header could only show the id: fetch it after this paint, then redraw.
    if (!providersIfLoaded()) void loadProvidersWhenIdle(CATALOG_DELAY_MS).then((loaded) => loaded && this.refresh());
    // A local server's window and served model, asked off this paint: the header and meter redraw with them.
    else void this.options.models.probeServer(settings).then((found) => found && this.refresh());
    const setup = this.options.models.setupNeeded(settings);
    // Nothing set up: VS Code's own models are offered first, once VS Code listed them.
    if (setup === "noKey") this.listVscodeModelsOnce();
    const vscodeModels = setup !== undefined && knownVscodeModels().length > 0;
    return {
      modelLabel: label.label,
      modelDetail: label.detail,
      ...(setup ? { setup } : {}),
      ...(vscodeModels ? { vscodeModels } : {}),
      ...(this.modelNote ? { modelNote: this.modelNote } : {}),
      storage: this.options.storageKind,
      canContinue: session.interrupted,
      editsAllowedForChat: session.allowsEditsForChat,
      ...imageInputStatus(this.options.models.imageInput(choice, false)),
      writtenElsewhere: this.options.otherWindows.writtenElsewhere,
      ...(this.branchNote ? { branchNote: this.branchNote } : {}),
    };
  }

  private vscodeListing: Promise<unknown> | undefined;

  /** Lists VS Code's models once (and again whenever VS Code says they changed); the listing refreshes the status. */
  private listVscodeModelsOnce(): void {
    if (this.vscodeListing || !lmAvailable()) return;
    this.vscodeListing = listVscodeModels().catch((error: unknown) => this.options.log(`listing VS Code's language models: ${String(error)}`));
    vscode.lm.onDidChangeChatModels(() => void listVscodeModels().catch(() => undefined));
  }

  /** Sends the status again (something it shows changed). */
  send(overrides: Partial<ViewStatus> = {}): void {
    this.options.view.send({ type: "view/status", status: { ...this.status(), ...overrides } });
  }

  /** Posts the facts around the chat (model, storage, Continue) after they may have changed: a settings change, a finished run. */
  refresh(): void {
    this.send();
    this.previewMeter(false);
  }

  /** The notes last until the next prompt or chat. */
  clearNotes(): void {
    this.branchNote = undefined;
    this.modelNote = undefined;
  }

  /** "Files changed on the branch you left keep their changes …" (undefined: none). */
  setBranchNote(note: string | undefined): void {
    this.branchNote = note;
  }

  /**
   * This chat's model (the header's picker): saved in the chat; the next request uses it. The view
   * confirms it (the header, and a short note saying what changed).
   */
  async setChatModel(choice: ChatModelChoice, options: { madeDefault?: boolean } = {}): Promise<void> {
    await this.options.screen.currentSession.setModel(choice);
    const label = modelLabel(settingsForChat(readProviderSettings(), choice), choice.thinkingLevel, catalogName);
    this.modelNote = `This chat now uses ${label.label}${options.madeDefault ? ", and new chats start with it" : ""}.`;
    this.refresh();
  }

  /**
   * Once the view shows a restored chat, the meter gets the window of the model the settings name
   * (from the provider bundle, loaded now, after activation; no key, no request).
   */
  viewReady(): void {
    if (this.options.screen.currentSession.messages.some((m) => m.role === "assistant")) setTimeout(() => this.previewMeter(true), 0);
  }

  /** The settings' model for the meter, until the next run binds the one it uses. */
  private previewMeter(load: boolean): void {
    const session = this.options.screen.currentSession;
    const settings = settingsForChat(readProviderSettings(), session.model);
    if (settings.provider === VSCODE_LM) {
      const known = knownVscodeModel(settings.model);
      if (known) session.previewModel(vscodeModelForMeter(known));
      return;
    }
    const providers = load ? loadProviders() : providersIfLoaded();
    if (!providers) return;
    try {
      session.previewModel(providers.modelForMeter(settings));
    } catch (error) {
      this.options.log(`meter: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
