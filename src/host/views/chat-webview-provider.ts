// The sidebar webview: strict CSP, local assets only, and the typed protocol. Every message
// from the webview is validated before its handler (handlers/) sees it; host messages go through a
// HostChannel (sequence numbers, delta batching). The view holds no chat state of its own:
// on `view/ready` or `view/resync` it gets a full snapshot (views/view-status.ts).
import * as vscode from "vscode";
import { redact } from "../models/key-redaction";
import { HostChannel } from "../../shared/host-channel";
import type { ChatEvent, HostMessageBody, WebviewMessage } from "../../shared/protocol";
import { parseWebviewMessage } from "../../shared/validate";
import { webviewHtml } from "../../shared/webview-page";

export interface ChatViewHandler {
  /** A validated message from the webview. */
  onMessage(message: WebviewMessage): void | Promise<void>;
  /** The body of a full snapshot of the current chat. */
  snapshot(): HostMessageBody;
  /** The webview said `view/ready` (it shows the chat now). */
  viewReady?(): void;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = "piChat.chatView";
  private view: vscode.WebviewView | undefined;
  private channel: HostChannel | undefined;
  /** Nothing is posted before the webview says `view/ready`: the snapshot sent then covers it. */
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly readyWaiters: (() => void)[] = [];
  /** Every host message posted, for the extension's tests (only kept in test mode). */
  readonly posted: unknown[] | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly handler: ChatViewHandler,
    private readonly log: (line: string) => void,
    private readonly options: { recordPosted?: boolean; imagesRoot?: vscode.Uri } = {},
  ) {
    this.posted = options.recordPosted ? [] : undefined;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const out = vscode.Uri.joinPath(this.extensionUri, "out");
    // The chats' images, and nothing else of the storage folder (no transcript is readable).
    const roots = this.options.imagesRoot ? [out, this.options.imagesRoot] : [out];
    view.webview.options = { enableScripts: true, localResourceRoots: roots };
    view.webview.html = this.html(view.webview);
    this.channel?.dispose();
    this.channel = new HostChannel((message) => {
      this.posted?.push(message);
      void view.webview.postMessage(message);
    });
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      view.onDidDispose(() => {
        this.view = undefined;
        this.ready = false;
        this.channel?.dispose();
        this.channel = undefined;
      }),
    );
  }

  /** Reveals the view and resolves once its webview is ready (or after a timeout). */
  async reveal(preserveFocus = false): Promise<void> {
    if (this.view) this.view.show(preserveFocus);
    else await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
    if (this.ready) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      this.readyWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** A validated webview message, also the entry point the extension's tests use. */
  async receive(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.log(parsed.error);
      return;
    }
    const message = parsed.message;
    if (message.type === "view/ready" || message.type === "view/resync") {
      if (message.type === "view/resync") this.log(`webview asked for a resync after seq ${message.lastSeq}`);
      this.ready = true;
      this.sendSnapshot();
      this.handler.viewReady?.();
      for (const waiter of this.readyWaiters.splice(0)) waiter();
      return;
    }
    try {
      await this.handler.onMessage(message);
    } catch (error) {
      this.log(`handling ${message.type} failed: ${error instanceof Error ? error.message : String(error)}`);
      void vscode.window.showErrorMessage(redact(`Pi Chat: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  sendEvent(event: ChatEvent): void {
    if (this.ready) this.channel?.sendEvent(event);
  }

  send(body: HostMessageBody): void {
    if (this.ready) this.channel?.send(body);
  }

  sendSnapshot(): void {
    if (!this.ready) return;
    const snapshot = this.handler.snapshot();
    const root = this.options.imagesRoot;
    if (snapshot.type === "view/snapshot" && root && this.view) {
      snapshot.imageBase = this.view.webview.asWebviewUri(vscode.Uri.joinPath(root, snapshot.chatId)).toString();
    }
    this.channel?.send(snapshot);
  }

  dispose(): void {
    this.channel?.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  private html(webview: vscode.Webview): string {
    const nonce = makeNonce();
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, "out", name)).toString();
    return webviewHtml({ cspSource: webview.cspSource, nonce, styles: [asset("webview.css")], scripts: [asset("webview.js")] });
  }
}

function makeNonce(): string {
  const bytes = new Uint8Array(24);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "");
}
