// The one model picker (the header's model button, the view's title bar, "Pi Chat: Choose
// Model…"): every provider's models under the provider's name, recommended and newest first, and
// for an OpenAI-compatible server the models it reports (GET /v1/models; a typed name stays
// possible). What it changes is this chat (a model line in its transcript); the "Also make it the
// default for new chats" item at the top writes the settings too. Then the thinking level where
// the model has one. "Use a Local Model" sets the server's URL (a user setting) and picks from its
// models the same way.
import * as vscode from "vscode";
import type { ChatModelChoice } from "../../core/transcript";
import { PROVIDER_TITLES, settingsForChat } from "./chat-model";
import type { ChatScreen } from "../chat-screen";
import type { ChatStatus } from "../views/view-status";
import { applyModelChoice, asModelChoice } from "./model-choice";
import { orderModels } from "./model-order";
import { CLOUD_PROVIDERS, DEFAULT_MODELS, isProviderId, type CloudProviderId, type ProviderId } from "../providers/catalog";
import { loadProviders, readProviderSettings, type SecretKeys } from "./providers-loader";
import { askForApiKey, hasApiKey } from "./api-key-prompt";
import { VSCODE_LM } from "../providers/catalog";
import { useVscodeModels, vscodeModelItems } from "../vscode-models/picker-items";
import type { ModelItem } from "./model-item";
import type { ProviderSignIns } from "./provider-sign-in";
import { askProviderOptions, cloudItems, modelRow, recentItems, recentModels, rememberModel } from "./picker-groups";

/** Levels pi-ai knows, to check an argument (a keybinding's or a test's). */
const THINKING_LEVELS = new Set(["off", "minimal", "low", "medium", "high", "xhigh", "max"]);

/** The base URL offered when none is set: Ollama's, the most common local server. */
const SUGGESTED_LOCAL_URL = "http://localhost:11434/v1";

/** How long the picker waits for a local server's model list before offering a typed name alone. */
const SERVER_LIST_TIMEOUT_MS = 3000;

/** The picker's placeholder once every list is in, and while some are still coming (the e2e tests wait on it). */
const PLACEHOLDER = "The chat you are in uses the model you pick. Type to filter.";
const PLACEHOLDER_LISTING = "Listing the models… The chat you are in uses the model you pick. Type to filter.";

/** A choice passed as the command's argument: `{ provider, model, thinkingLevel? }`. */
export function asChatModelChoice(value: unknown): ChatModelChoice | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { provider, model, thinkingLevel } = value as Record<string, unknown>;
  if (!isProviderId(provider) || typeof model !== "string" || model.length > 200) return undefined;
  if (thinkingLevel !== undefined && (typeof thinkingLevel !== "string" || !THINKING_LEVELS.has(thinkingLevel))) return undefined;
  return { provider, modelId: model.trim(), ...(thinkingLevel ? { thinkingLevel } : {}) };
}

export function registerModelCommands(
  screen: ChatScreen,
  status: ChatStatus,
  secrets: SecretKeys,
  log: (line: string) => void,
  memento: vscode.Memento,
  signIns: ProviderSignIns,
): vscode.Disposable[] {
  const picker = new ModelPicker(screen, status, secrets, log, memento, signIns);
  return [
    vscode.commands.registerCommand("piChat.selectChatModel", async (argument?: unknown) => {
      const given = asChatModelChoice(argument);
      if (given) return status.setChatModel(given);
      return picker.pick({ makeDefault: false });
    }),
    // The default for new chats: a keybinding may pass { provider, model }; otherwise the same
    // picker, with "also make it the default" already ticked.
    vscode.commands.registerCommand("piChat.selectModel", async (argument?: unknown) => {
      const given = asModelChoice(argument);
      if (given) return applyModelChoice(given);
      return picker.pick({ makeDefault: true });
    }),
    vscode.commands.registerCommand("piChat.useLocalModel", () => picker.useLocalModel()),
    vscode.commands.registerCommand("piChat.useVscodeModels", () => useVscodeModels(status, log)),
    vscode.commands.registerCommand("piChat.openSettings", () => vscode.commands.executeCommand("workbench.action.openSettings", "@ext:pi-chat.pi-chat")),
  ];
}

/** What the list gave: a model (and whether it becomes the default too), or the wish to set up another server. */
type Picked = { kind: "model"; provider: ProviderId; id: string; makeDefault: boolean } | { kind: "otherServer" };

class ModelPicker {
  constructor(
    private readonly screen: ChatScreen,
    private readonly status: ChatStatus,
    private readonly secrets: SecretKeys,
    private readonly log: (line: string) => void,
    private readonly memento: vscode.Memento,
    private readonly signIns: ProviderSignIns,
  ) {}

  /** Picks this chat's model (and, when ticked, the default); resolves when done or dismissed. */
  async pick(options: { makeDefault: boolean }): Promise<void> {
    const current = settingsForChat(readProviderSettings(), this.screen.currentSession.model);
    const picked = await this.pickModel(current, options.makeDefault);
    if (!picked) return;
    if (picked.kind === "otherServer") return this.useLocalModel();
    const thinkingLevel = await this.pickThinkingLevel(picked.provider, picked.id);
    if (thinkingLevel === null) return;
    await this.choose({ provider: picked.provider, modelId: picked.id, ...(thinkingLevel ? { thinkingLevel } : {}) }, picked.makeDefault);
  }

  /** "Use a Local Model": the server's URL (a user setting), then one of the models it reports. */
  async useLocalModel(): Promise<void> {
    const settings = readProviderSettings();
    const baseUrl = await vscode.window.showInputBox({
      title: "Pi Chat: use a local model (1/2): the server's base URL",
      prompt: "An OpenAI-compatible server: Ollama http://localhost:11434/v1, LM Studio http://localhost:1234/v1, llama.cpp http://localhost:8080/v1",
      value: (settings.provider === "openai-compatible" && settings.baseUrl) || SUGGESTED_LOCAL_URL,
      ignoreFocusOut: true,
      validateInput: (text) => (/^https?:\/\/\S+$/.test(text.trim()) ? undefined : "A full http:// or https:// URL, for example http://localhost:11434/v1"),
    });
    if (baseUrl === undefined) return;
    const served = await this.serverModels(baseUrl.trim());
    const items: ModelItem[] = [
      ...served.models.map((id): ModelItem => ({ label: id, action: "model", provider: "openai-compatible", id })),
      { label: "$(edit) Type a model name…", action: "typeName", alwaysShow: true },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: "Pi Chat: use a local model (2/2): which model",
      placeHolder: served.problem ?? `The models the server at ${baseUrl.trim()} reports`,
      ignoreFocusOut: true,
    });
    if (!picked) return;
    const id = picked.action === "typeName" ? await this.typeModelName("") : picked.id;
    if (id === undefined) return;
    // The URL is a setting (it is where requests go); the model becomes the default and this chat's.
    await applyModelChoice({ provider: "openai-compatible", model: id, baseUrl: baseUrl.trim() });
    await this.status.setChatModel({ provider: "openai-compatible", modelId: id }, { madeDefault: true });
  }

  private async choose(choice: ChatModelChoice, makeDefault: boolean): Promise<void> {
    if (makeDefault) await applyModelChoice({ provider: choice.provider as ProviderId, model: choice.modelId });
    await this.status.setChatModel(choice, { madeDefault: makeDefault });
    await rememberModel(this.memento, { provider: choice.provider as ProviderId, id: choice.modelId });
    // A provider without a key: its key is asked for now, not after the first request fails.
    const provider = choice.provider as ProviderId;
    if (provider === VSCODE_LM) return;
    // Azure's resource, Cloudflare's account…: asked now when missing, not after a failed request.
    await askProviderOptions(provider, true);
    if (!(await hasApiKey(this.secrets, provider)) && !(await this.signIns.isSignedIn(provider)))
      await askForApiKey(this.secrets, provider, `${PROVIDER_TITLES[provider]} needs an API key for ${choice.modelId}.`);
  }

  /** The list: providers under their names; undefined when dismissed. */
  private pickModel(current: ReturnType<typeof readProviderSettings>, makeDefault: boolean): Promise<Picked | undefined> {
    const providers = loadProviders();
    const settings = readProviderSettings();
    const quickPick = vscode.window.createQuickPick<ModelItem>();
    quickPick.title = "Pi Chat: model for this chat";
    quickPick.placeholder = PLACEHOLDER;
    quickPick.matchOnDescription = true;
    quickPick.ignoreFocusOut = true;
    let wantsDefault = makeDefault;
    const toggle = (): ModelItem => ({
      label: `${wantsDefault ? "$(pass-filled)" : "$(circle-large-outline)"} Also make it the default for new chats`,
      description: wantsDefault ? "on: new chats start with it too" : "off: only this chat changes",
      action: "toggleDefault",
      alwaysShow: true,
    });
    const currentId = current.model || DEFAULT_MODELS[current.provider];
    const isCurrent = (provider: ProviderId, id: string) => provider === current.provider && id === currentId;
    const listModels = (provider: CloudProviderId) => providers.listModels(provider);
    const nameOf = (provider: ProviderId, id: string) =>
      provider === "openai-compatible" ? undefined : providers.listModels(provider).find((m) => m.id === id)?.name;
    const recent = recentItems(recentModels(this.memento), nameOf, isCurrent);
    let groups = cloudItems(new Set(), listModels, isCurrent);
    const server = settings.provider === "openai-compatible" ? settings.baseUrl : undefined;
    const local = (models: readonly string[], note: string | undefined): ModelItem[] => [
      {
        label: server ? `${PROVIDER_TITLES["openai-compatible"]} at ${server}` : PROVIDER_TITLES["openai-compatible"],
        kind: vscode.QuickPickItemKind.Separator,
        action: "model",
      },
      ...models.map(
        (id): ModelItem => ({
          label: `${isCurrent("openai-compatible", id) ? "$(check) " : ""}${id}`,
          description: isCurrent("openai-compatible", id) ? "this chat's" : "served by the local server",
          action: "model",
          provider: "openai-compatible",
          id,
        }),
      ),
      ...(server
        ? [{ label: "$(edit) Type a model name the server serves…", ...(note ? { detail: note } : {}), action: "typeName" as const, alwaysShow: true }]
        : []),
      { label: server ? "$(server) Use another local server…" : "$(server) Use a local model…", action: "otherServer", alwaysShow: true },
    ];
    let vscodeItems: ModelItem[] = [];
    let serverModels: readonly string[] = current.provider === "openai-compatible" && current.model ? [current.model] : [];
    let serverNote: string | undefined;
    // The lists arrive one by one (keys, VS Code's models, the server's): each redraw keeps the row
    // the user is on, and a list that did not change is not drawn again, so a row does not move
    // under the user's pointer or Enter while they type.
    let drawn = "";
    const show = () => {
      const items = [toggle(), ...recent, ...vscodeItems, ...groups.configured, ...local(serverModels, serverNote), ...groups.cloud];
      const fingerprint = JSON.stringify(items.map((i) => [i.label, i.description, i.detail, i.action, i.provider, i.id]));
      if (fingerprint === drawn) return;
      drawn = fingerprint;
      const was = quickPick.activeItems[0];
      quickPick.items = items;
      const active =
        (was && items.find((i) => i.label === was.label && i.action === was.action && i.provider === was.provider && i.id === was.id)) ??
        items.find((i) => i.provider !== undefined && i.id !== undefined && isCurrent(i.provider, i.id));
      if (active) quickPick.activeItems = [active];
    };
    show();
    // Busy, and saying so, until every list is in: a row may still move until then.
    let listing = 0;
    const whenListed = <T>(list: Promise<T>, use: (value: T) => void): void => {
      listing++;
      quickPick.busy = true;
      quickPick.placeholder = PLACEHOLDER_LISTING;
      void list
        .then(use)
        .catch((error: unknown) => this.log(`listing models for the picker: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          listing--;
          if (listing === 0) {
            quickPick.busy = false;
            quickPick.placeholder = PLACEHOLDER;
          }
          show();
        });
    };
    // The providers with a key (stored or in their variable) list their models.
    whenListed(this.configuredProviders(), ({ configured, signedIn }) => {
      groups = cloudItems(configured, listModels, isCurrent, { offers: (p) => this.signIns.offers(p), signedIn });
    });
    // VS Code's own models first (they need no key), as soon as VS Code lists them.
    whenListed(vscodeModelItems(isCurrent, this.log), (items) => {
      vscodeItems = items;
    });
    if (server) {
      whenListed(this.serverModels(server), (served) => {
        serverModels = [...new Set([...served.models, ...(current.provider === "openai-compatible" && current.model ? [current.model] : [])])];
        serverNote = served.problem;
      });
    }
    return new Promise<Picked | undefined>((resolve) => {
      let done = false;
      quickPick.onDidAccept(async () => {
        const item = quickPick.selectedItems[0];
        if (!item || item.action === "none") return;
        if (item.action === "toggleDefault") {
          wantsDefault = !wantsDefault;
          const items = quickPick.items.map((i) => (i.action === "toggleDefault" ? toggle() : i));
          quickPick.items = items;
          quickPick.activeItems = [items[0]!];
          return;
        }
        done = true;
        quickPick.hide();
        resolve(await this.accepted(item, current, isCurrent, wantsDefault));
      });
      quickPick.onDidHide(() => {
        quickPick.dispose();
        if (!done) resolve(undefined);
      });
      quickPick.show();
    });
  }

  /** What an accepted row leads to: a model (after a key or a typed name where it needs one), another server, or nothing. */
  private async accepted(
    item: ModelItem,
    current: ReturnType<typeof readProviderSettings>,
    isCurrent: (provider: ProviderId, id: string) => boolean,
    makeDefault: boolean,
  ): Promise<Picked | undefined> {
    if (item.action === "otherServer") return { kind: "otherServer" };
    if ((item.action === "setupProvider" || item.action === "signIn") && item.provider) {
      const id = await this.setUpProvider(item.provider as CloudProviderId, isCurrent, item.action === "signIn");
      return id === undefined ? undefined : { kind: "model", provider: item.provider, id, makeDefault };
    }
    if (item.action === "typeName") {
      const id = await this.typeModelName(current.provider === "openai-compatible" ? current.model : "");
      return id === undefined ? undefined : { kind: "model", provider: "openai-compatible", id, makeDefault };
    }
    return item.provider && item.id !== undefined ? { kind: "model", provider: item.provider, id: item.id, makeDefault } : undefined;
  }

  /** The cloud providers a run would find a key (stored, or in the environment) or a sign-in for. */
  private async configuredProviders(): Promise<{ configured: Set<CloudProviderId>; signedIn: Set<string> }> {
    // One pass, every provider's sign-in and key read at once.
    const states = await Promise.all(
      CLOUD_PROVIDERS.map(async (p) => {
        const [signedIn, keyed] = await Promise.all([this.signIns.isSignedIn(p.id), hasApiKey(this.secrets, p.id)]);
        return { id: p.id, signedIn, configured: signedIn || keyed };
      }),
    );
    return {
      configured: new Set(states.filter((s) => s.configured).map((s) => s.id)),
      signedIn: new Set<string>(states.filter((s) => s.signedIn).map((s) => s.id)),
    };
  }

  /** A cloud provider without a key: its key first (naming its variable) or its sign-in, then one of its models. */
  private async setUpProvider(
    provider: CloudProviderId,
    isCurrent: (provider: ProviderId, id: string) => boolean,
    signIn = false,
  ): Promise<string | undefined> {
    if (signIn) {
      if (!(await this.signIns.signIn(provider))) return undefined;
    } else {
      await askForApiKey(this.secrets, provider, `Choose a ${PROVIDER_TITLES[provider]} model after this.`);
      if (!(await hasApiKey(this.secrets, provider))) return undefined;
    }
    if (!(await askProviderOptions(provider, false))) return undefined;
    const models = orderModels(loadProviders().listModels(provider), DEFAULT_MODELS[provider] || undefined);
    const picked = await vscode.window.showQuickPick(
      models.map((m) => modelRow(provider, m, isCurrent)),
      { title: `Pi Chat: ${PROVIDER_TITLES[provider]} model for this chat`, matchOnDescription: true, ignoreFocusOut: true },
    );
    return picked?.id;
  }

  /** The model ids a local server reports, or none and the reason in words. */
  private async serverModels(baseUrl: string): Promise<{ models: string[]; problem?: string }> {
    try {
      const listed = await loadProviders().listServerModels({ provider: "openai-compatible", model: "", baseUrl }, this.secrets, {
        discoveryTimeoutMs: SERVER_LIST_TIMEOUT_MS,
      });
      return listed.length > 0
        ? { models: listed.map((m) => m.id) }
        : { models: [], problem: `The server at ${baseUrl} reports no models: type the name of one it serves.` };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log(`listing the models of ${baseUrl}: ${reason}`);
      return { models: [], problem: `${reason} Type the name of a model it serves.` };
    }
  }

  private async typeModelName(value: string): Promise<string | undefined> {
    const text = await vscode.window.showInputBox({
      title: "Pi Chat: the model name the local server serves",
      prompt: "For example qwen2.5-coder:7b (Ollama) or the file name LM Studio shows.",
      value,
      ignoreFocusOut: true,
      validateInput: (typed) => (typed.trim() === "" ? "Enter the model's name" : undefined),
    });
    return text?.trim();
  }

  /** The thinking level where the model has a choice of them; "" for none, null when dismissed. */
  private async pickThinkingLevel(provider: ProviderId, id: string): Promise<string | null> {
    const levels = loadProviders().thinkingLevels({ provider, model: id });
    if (levels.length <= 1) return "";
    const current = this.screen.currentSession.model?.thinkingLevel ?? "off";
    const picked = await vscode.window.showQuickPick(
      levels.map((level) => ({ label: level, description: level === current ? "this chat's" : "" })),
      { title: "Pi Chat: thinking level for this chat", placeHolder: "How long the model thinks before it answers (more costs more tokens)" },
    );
    if (!picked) return null;
    return picked.label === "off" ? "" : picked.label;
  }
}
