// Consent, per provider and URL, before a built-in provider's API key goes to a base URL other
// than the provider's own endpoint. Remembered in the extension's global state (not in settings,
// which a workspace or a settings sync could bring along), asked in a modal that names the host.
import * as vscode from "vscode";
import type { BaseUrlOverride } from "../providers/provider-bundle";

const STATE_KEY = "piChat.allowedBaseUrls";

export type BaseUrlQuestion = (override: BaseUrlOverride) => Promise<boolean>;

export class BaseUrlConsent {
  /** Who is asked; the modal below. The extension's own tests answer it in place of a person. */
  ask: BaseUrlQuestion = askInModal;

  constructor(private readonly state: vscode.Memento) {}

  /** True if the user allowed this URL for this provider, now or before. */
  async allow(override: BaseUrlOverride): Promise<boolean> {
    const entry = consentEntry(override);
    if (this.allowed().includes(entry)) return true;
    if (!(await this.ask(override))) return false;
    await this.state.update(STATE_KEY, [...this.allowed(), entry]);
    return true;
  }

  /** Forgets every URL allowed so far. */
  async forgetAll(): Promise<void> {
    await this.state.update(STATE_KEY, undefined);
  }

  allowed(): string[] {
    const value = this.state.get<unknown>(STATE_KEY);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  }
}

function consentEntry(override: BaseUrlOverride): string {
  return `${override.provider} ${override.url}`;
}

async function askInModal(override: BaseUrlOverride): Promise<boolean> {
  let host = override.url;
  let plain = false;
  try {
    const url = new URL(override.url);
    host = url.host;
    plain = url.protocol === "http:" && !["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  } catch {
    // parseBaseUrl already refused anything that is not a URL
  }
  const allow = "Allow for This URL";
  const answer = await vscode.window.showWarningMessage(
    `Send your ${override.label} API key to ${host}?`,
    {
      modal: true,
      detail:
        `piChat.baseUrl sends ${override.label} requests, with your ${override.label} API key, to ${override.url} instead of ${override.label}'s own endpoint (${override.ownUrl}). ` +
        `Allow it only for a server you trust with that key, such as your company's proxy.` +
        (plain ? " The URL is plain http://: the key would cross the network unencrypted." : ""),
    },
    allow,
  );
  return answer === allow;
}
