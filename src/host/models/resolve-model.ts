// The model a chat runs with: its binding for a request (provider bundle, key, base-URL consent),
// which providers have a stored key (so the empty chat can say one is missing), the catalog's
// name for the header, and whether the model accepts images.
import * as vscode from "vscode";
import type { ModelBinding } from "../../core/session/types";
import type { ChatModelChoice } from "../../core/transcript";
import type { ViewStatus } from "../../shared/protocol";
import { ENV_VARS, PROVIDER_IDS, type ProviderId } from "../providers/catalog";
import type { BaseUrlConsent } from "./base-url-consent";
import { settingsForChat } from "./chat-model";
import { keyRedactor } from "./key-redaction";
import { loadProviders, providersIfLoaded, readProviderSettings, type SecretKeys } from "./providers-loader";
import { lazyBundle } from "../lazy-bundle";
import { VSCODE_LM } from "../providers/catalog";
import { knownVscodeModel, listVscodeModels } from "../vscode-models/lm-api";
import type * as VscodeModels from "../vscode-models/vscode-models-bundle";
import type { ProviderSignIns } from "./provider-sign-in";

const vscodeModels = lazyBundle<typeof VscodeModels>("vscode-models.js");

/** A model's catalog name, when the provider bundle is loaded (the view's status never loads it). */
export function catalogName(provider: ProviderId, id: string): string | undefined {
  if (provider === VSCODE_LM) return knownVscodeModel(id)?.name;
  return providersIfLoaded()
    ?.listModels(provider)
    .find((m) => m.id === id)?.name;
}

export class ChatModels implements vscode.Disposable {
  /** Providers with a stored key (read from the secret storage, which answers asynchronously); undefined until read. */
  private storedKeys: ReadonlySet<ProviderId> | undefined;
  private readonly keysRead = new vscode.EventEmitter<void>();
  /** The stored keys were read again: what the empty chat says may have changed. */
  readonly onDidReadKeys = this.keysRead.event;

  constructor(
    private readonly secrets: SecretKeys,
    private readonly consent: BaseUrlConsent,
    private readonly log: (line: string) => void,
    /** Sign-in to providers where pi-ai has a flow: a stored one is used before a key. */
    readonly signIns: ProviderSignIns,
  ) {}

  /** The binding of the chat's model (or the settings' one) for the next request; loads the provider bundle. */
  async resolve(choice: ChatModelChoice | undefined): Promise<ModelBinding> {
    const settings = settingsForChat(readProviderSettings(), choice);
    this.log(`run: provider ${settings.provider}, model ${settings.model || "(default)"}`);
    // VS Code's own models: no key, no URL; VS Code asks the user whether Pi Chat may use them.
    if (settings.provider === VSCODE_LM) {
      const binding = await vscodeModels.load().resolveVscodeModelBinding(settings.model, this.log);
      // The header's name and the image check read the last listing: keep it current.
      void listVscodeModels().catch(() => undefined);
      return binding;
    }
    const providers = loadProviders();
    // providers.js is a separate bundle with its own RunSetupError class: the session recognises
    // its setup errors by their code (runSetupFix), not by class.
    return providers.resolveModelBinding(settings, this.secrets, {
      allowBaseUrl: (override) => this.consent.allow(override),
      onKeyUsed: (key) => keyRedactor.add(key),
      signedIn: (provider) => this.signIns.auth(provider),
    });
  }

  /** Reads which providers have a stored key (at start and whenever the secret storage changes). */
  async refreshKeys(): Promise<void> {
    const found = new Set<ProviderId>();
    for (const provider of PROVIDER_IDS) {
      try {
        // Both read: a sign-in's tokens reach the redactor at activation even beside a key.
        const [key, signedIn] = await Promise.all([this.secrets.get(provider), this.signIns.isSignedIn(provider)]);
        if (key?.trim() || signedIn) found.add(provider);
      } catch {
        // Unreadable: counted as missing; a run says why.
      }
    }
    this.storedKeys = found;
    this.keysRead.fire();
  }

  /** Why no model can answer with these settings, if none can; undefined while the keys are unknown. */
  setupNeeded(settings: ReturnType<typeof readProviderSettings>): ViewStatus["setup"] {
    if (settings.provider === "openai-compatible") return settings.baseUrl ? undefined : "noServer";
    if (settings.provider === VSCODE_LM) return undefined;
    if (!this.storedKeys || this.storedKeys.has(settings.provider)) return undefined;
    return ENV_VARS[settings.provider].some((name) => process.env[name]?.trim()) ? undefined : "noKey";
  }

  /**
   * The model an OpenAI-compatible server said it serves, once asked (never asks: the view's status
   * must not wait); undefined for the other providers or before the server answered.
   */
  servedModel(settings: ReturnType<typeof readProviderSettings>): string | undefined {
    if (settings.provider !== "openai-compatible" || !settings.baseUrl) return undefined;
    return providersIfLoaded()?.knownServerWindow(settings.baseUrl, settings.model)?.modelId;
  }

  /** Settings (base URL and model) whose server was asked in the background: asked once each. */
  private readonly probed = new Set<string>();

  /**
   * Asks an OpenAI-compatible server for its window and served model in the background, once per
   * base URL and model; true when it answered something new (the caller redraws the header and meter).
   */
  async probeServer(settings: ReturnType<typeof readProviderSettings>): Promise<boolean> {
    const providers = providersIfLoaded();
    if (!providers || settings.provider !== "openai-compatible" || !settings.baseUrl) return false;
    const key = `${settings.baseUrl}\n${settings.model}`;
    if (this.probed.has(key)) return false;
    this.probed.add(key);
    const found = await providers.probeCompatibleServer(settings, this.secrets, { onKeyUsed: (k) => keyRedactor.add(k) });
    if (found) this.log(`server window: ${found.contextWindow} tokens (${found.source})${found.modelId ? `, model ${found.modelId}` : ""}`);
    return found !== undefined;
  }

  /** Whether the chat's model accepts images; `load` allows loading the provider bundle to find out. */
  imageInput(choice: ChatModelChoice | undefined, load: boolean): boolean | undefined {
    const settings = settingsForChat(readProviderSettings(), choice);
    if (settings.provider === VSCODE_LM) return knownVscodeModel(settings.model)?.imageInput;
    const providers = load ? loadProviders() : providersIfLoaded();
    return providers?.modelAcceptsImages(settings);
  }

  dispose(): void {
    this.keysRead.dispose();
  }
}
