// Sign-in to a provider where pi-ai has an OAuth flow, the VS Code side: the picker's "Sign in to
// X…" row and "Pi Chat: Sign In to Provider…" run it, "Pi Chat: Sign Out of Provider…" ends it.
// Before the browser opens a modal names the page; the flow waits on its loopback callback (on
// 127.0.0.1) or its device code under a progress notification with Cancel. The credentials are
// kept by the providers bundle (src/host/providers/sign-in.ts) in SecretStorage under the
// provider's id, and every token read is added to the one redactor.
import * as vscode from "vscode";
import type { AuthEvent, AuthInteraction, AuthPrompt, ModelAuth } from "@earendil-works/pi-ai";
import { joinRunning } from "../../core/join-running";
import { isSignInProvider, SIGN_IN_PROVIDERS, SIGN_IN_SECRET_PREFIX, type SignInProviderId } from "../providers/cloud-providers";
import type { SignInCredentialStore, SignInFlow } from "../providers/sign-in";
import { PROVIDER_TITLES } from "./chat-model";
import { keyRedactor } from "./key-redaction";
import { loadProviders } from "./providers-loader";
import { openablePage, pageName } from "./sign-in-page";

/** A sign-in the user does not finish within this long ends with a message (device codes live 15 min). */
export const PROVIDER_SIGN_IN_TIMEOUT_MS = 15 * 60_000;

export class SignInCancelled extends Error {
  constructor() {
    super("the sign-in was cancelled");
  }
}

export class ProviderSignIns {
  /**
   * Test seam: flows registered for the tests only (the local authorization server's), by provider
   * id; never set by the product, whose flows are pi-ai's for SIGN_IN_PROVIDERS.
   */
  readonly testFlows = new Map<string, SignInFlow>();

  /** Before the browser opens: names the page. Host tests replace it. */
  confirmOpen: (providerTitle: string, page: URL, userCode?: string) => Promise<boolean> = askToOpen;

  /** Opens the page in the browser. Host tests replace it with the local server's "browser". */
  openExternal = (uri: vscode.Uri): Thenable<boolean> => vscode.env.openExternal(uri);

  private store: SignInCredentialStore | undefined;
  private readonly running = new Map<string, Promise<boolean>>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    /** Folder of the cross-window locks (shared with the MCP tokens' locks' folder parent). */
    private readonly lockDir: string,
    private readonly log: (line: string) => void,
  ) {}

  /** The providers with a flow: the product's list, and any a test registered. */
  get providers(): string[] {
    return [...new Set([...SIGN_IN_PROVIDERS.map((p) => p.id), ...this.testFlows.keys()])];
  }

  /** Whether the provider has a flow here. */
  offers(provider: string): boolean {
    return isSignInProvider(provider) || this.testFlows.has(provider);
  }

  /**
   * Whether a sign-in is stored for the provider (it counts as configured, like a key). Its tokens
   * are told to the redactor here too: read at activation, they are known before any request.
   */
  async isSignedIn(provider: string): Promise<boolean> {
    if (!this.offers(provider)) return false;
    let text: string | undefined;
    try {
      text = await this.secrets.get(SIGN_IN_SECRET_PREFIX + provider);
    } catch {
      return false;
    }
    if (text === undefined) return false;
    try {
      const { access, refresh } = JSON.parse(text) as { access?: unknown; refresh?: unknown };
      for (const token of [access, refresh]) if (typeof token === "string") keyRedactor.add(token);
    } catch {
      // Not JSON: not a usable sign-in (the providers bundle ignores it too); nothing to redact.
    }
    return true;
  }

  /** The request auth of a stored sign-in (refreshed by pi-ai when due); undefined when not signed in. */
  async auth(provider: string): Promise<ModelAuth | undefined> {
    const flow = this.flow(provider);
    if (!flow) return undefined;
    const auth = await loadProviders().signedInAuth(this.credentials(), provider, flow);
    keyRedactor.add(auth?.apiKey);
    return auth;
  }

  /** Signs in (a second call while one runs joins it); true when signed in. Every failure but Cancel is shown. */
  signIn(provider: string): Promise<boolean> {
    return joinRunning(this.running, provider, () => this.runSignIn(provider));
  }

  /** "Pi Chat: Sign In to Provider…": which provider, then its flow. */
  async pickAndSignIn(): Promise<boolean> {
    const picked = await vscode.window.showQuickPick(
      this.providers.map((id) => ({ label: title(id), description: SIGN_IN_PROVIDERS.find((p) => p.id === id)?.label ?? "", id })),
      { placeHolder: "Sign in to which provider? (Pi Chat opens its page in your browser)" },
    );
    return picked ? this.signIn(picked.id) : false;
  }

  /** "Pi Chat: Sign Out of Provider…": revoked where the flow can, and the stored credentials deleted. */
  async signOut(provider?: string): Promise<void> {
    let id = provider;
    if (id === undefined) {
      const signedIn = (await Promise.all(this.providers.map(async (p) => ((await this.isSignedIn(p)) ? p : undefined)))).filter(
        (p): p is string => p !== undefined,
      );
      if (signedIn.length === 0) {
        void vscode.window.showInformationMessage("Pi Chat is not signed in to any provider.");
        return;
      }
      const picked = await vscode.window.showQuickPick(
        signedIn.map((p) => ({ label: title(p), id: p })),
        { placeHolder: "Sign out of which provider?" },
      );
      if (!picked) return;
      id = picked.id;
    }
    const result = await loadProviders().signOutOfFlow(this.credentials(), id, this.flow(id), AbortSignal.timeout(30_000));
    const revoked = result.revoked ? " and its tokens revoked" : "";
    this.log(`signed out of ${id}${revoked}${result.revokeError ? ` (revoking failed: ${result.revokeError})` : ""}`);
    void vscode.window.showInformationMessage(
      `Pi Chat: signed out of ${title(id)}${revoked}.${result.revokeError ? ` The provider did not confirm the revocation: ${result.revokeError}` : ""}`,
    );
  }

  private flow(provider: string): SignInFlow | undefined {
    return this.testFlows.get(provider) ?? (isSignInProvider(provider) ? loadProviders().shippedSignInFlow(provider) : undefined);
  }

  private credentials(): SignInCredentialStore {
    this.store ??= new (loadProviders().SignInCredentialStore)(this.secrets, this.lockDir, (credential) => {
      keyRedactor.add(credential.access);
      keyRedactor.add(credential.refresh);
    });
    return this.store;
  }

  private async runSignIn(provider: string): Promise<boolean> {
    const flow = this.flow(provider);
    if (!flow) return false;
    const name = title(provider);
    // Aborted by the user's Cancel, a declined page, or a page refused (its reason is the message shown).
    const cancel = new AbortController();
    const timeout = AbortSignal.timeout(PROVIDER_SIGN_IN_TIMEOUT_MS);
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Pi Chat: signing in to ${name}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => cancel.abort(new SignInCancelled()));
          const signal = AbortSignal.any([cancel.signal, timeout]);
          const interaction = this.interaction(name, signal, cancel, (message) => progress.report({ message }));
          await loadProviders().signInWithFlow(this.credentials(), provider, flow, interaction);
        },
      );
      this.log(`signed in to ${provider}`);
      void vscode.window.showInformationMessage(`Pi Chat: signed in to ${name}.`);
      return true;
    } catch (thrown) {
      const error: unknown = cancel.signal.aborted
        ? cancel.signal.reason
        : timeout.aborted
          ? new Error(`the sign-in was not finished within ${PROVIDER_SIGN_IN_TIMEOUT_MS / 60_000} min`)
          : thrown;
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof SignInCancelled || (!cancel.signal.aborted && /cancel/i.test(reason))) {
        this.log(`sign-in to ${provider} cancelled`);
        return false;
      }
      this.log(`sign-in to ${provider} failed: ${reason}`);
      void vscode.window.showErrorMessage(`Pi Chat: signing in to ${name} failed: ${reason}`);
      return false;
    }
  }

  /** pi-ai's login callbacks as VS Code's: pages named then opened, device codes shown, choices as quick picks. */
  private interaction(name: string, signal: AbortSignal, cancel: AbortController, report: (message: string) => void): AuthInteraction {
    // A prompt waits until the page it follows was confirmed and opened.
    let opened: Promise<void> = Promise.resolve();
    const open = async (url: string, userCode?: string) => {
      const page = openablePage(url);
      if (!page) {
        this.log(`sign-in to ${name}: refused to open a page that is not an https address`);
        cancel.abort(new Error(`Pi Chat did not open the sign-in page: it is not an https:// address (${url.split(":")[0]}:)`));
        return;
      }
      if (!(await this.confirmOpen(name, page, userCode))) {
        cancel.abort(new SignInCancelled());
        return;
      }
      if (userCode) await vscode.env.clipboard.writeText(userCode);
      report(userCode ? `enter the code ${userCode} on ${page.host}…` : `waiting for you to finish in the browser (${page.host})…`);
      await this.openExternal(vscode.Uri.parse(page.href, true));
    };
    return {
      signal,
      notify: (event: AuthEvent) => {
        if (event.type === "auth_url") opened = opened.then(() => open(event.url));
        else if (event.type === "device_code") opened = opened.then(() => open(event.verificationUri, event.userCode));
        else report(event.message);
      },
      prompt: async (prompt: AuthPrompt) => {
        await opened;
        return ask(prompt, signal);
      },
    };
  }
}

function title(provider: string): string {
  return (PROVIDER_TITLES as Record<string, string>)[provider] ?? provider;
}

/** The modal before the browser opens: which provider, which page, and the code to enter there. */
async function askToOpen(providerTitle: string, page: URL, userCode?: string): Promise<boolean> {
  const open = userCode ? "Copy Code and Open Browser" : "Open Browser";
  const answer = await vscode.window.showInformationMessage(
    `Sign in to ${providerTitle}? Pi Chat will open ${pageName(page)} in your browser.`,
    {
      modal: true,
      detail: userCode
        ? `Enter the code ${userCode} on that page (Pi Chat copies it to the clipboard). The sign-in is kept in VS Code's secret storage.`
        : "After you allow access there, the browser comes back to Pi Chat on this computer. The sign-in is kept in VS Code's secret storage.",
    },
    open,
  );
  return answer === open;
}

/** A flow's question: a choice as a quick pick, a code or text as an input box (dismissed when the callback wins). */
async function ask(prompt: AuthPrompt, signal: AbortSignal): Promise<string> {
  if (prompt.type === "select") {
    const picked = await vscode.window.showQuickPick(
      prompt.options.map((o) => ({ label: o.label, description: o.description ?? "", id: o.id })),
      { placeHolder: prompt.message, ignoreFocusOut: true },
    );
    if (!picked) throw new SignInCancelled();
    return picked.id;
  }
  const box = vscode.window.createInputBox();
  box.title = "Pi Chat: sign-in";
  box.prompt =
    prompt.type === "manual_code" ? `${prompt.message} (only when the browser could not come back to VS Code, as in a remote window)` : prompt.message;
  box.placeholder = prompt.placeholder ?? "";
  box.password = prompt.type === "secret";
  box.ignoreFocusOut = true;
  return new Promise<string>((resolve, reject) => {
    const stop = () => {
      box.dispose();
      reject(new SignInCancelled());
    };
    for (const s of [signal, prompt.signal]) s?.addEventListener("abort", stop, { once: true });
    box.onDidAccept(() => {
      const value = box.value.trim();
      if (!value) return;
      resolve(value);
      box.dispose();
    });
    box.onDidHide(stop);
    box.show();
  });
}

export type { SignInProviderId };
