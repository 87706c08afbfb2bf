// The browser-test harness: one Chromium and one local HTTP server for the whole run (shared
// by every bundled test file through globalThis; scripts/run-browser-tests.mjs closes them).
// Each test gets a fresh page that loads the real out/webview.js and out/webview.css under the
// same strict CSP the extension host uses, with fake-vscode.js standing in for VS Code.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import type { ChatEvent, ChatSummary, HostMessageBody, PendingAttachment, ViewStatus, WebviewMessage } from "../../src/shared/protocol";
import { withStructuredDiff } from "../../src/shared/diff-hunks";
import { emptyChatState, type ChatState } from "../../src/shared/reducer";
import { webviewHtml } from "../../src/shared/webview-page";
import { CHROMIUM_LAUNCH_ARGS } from "../support/chromium-args";

/** The repository root: the nearest folder above this bundle (out/test/browser/, or out/bench/ for the benchmarks) with a package.json. */
export const repoRoot = ((): string => {
  let dir = __dirname;
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();

interface Shared {
  browser: Browser;
  server: Server;
  origin: string;
  /** Paths the server was asked for, in order (a hostile answer must not make the page fetch anything). */
  requests: string[];
  close(): Promise<void>;
}

const KEY = "__piChatBrowserHarness";
type Global = typeof globalThis & { [KEY]?: Promise<Shared> };

export function shared(): Promise<Shared> {
  const g = globalThis as Global;
  g[KEY] ??= start();
  return g[KEY];
}

const STATIC: Record<string, { file: string; type: string }> = {
  "/webview.js": { file: "out/webview.js", type: "text/javascript" },
  "/webview.js.map": { file: "out/webview.js.map", type: "application/json" },
  "/webview.css": { file: "out/webview.css", type: "text/css" },
  "/webview.css.map": { file: "out/webview.css.map", type: "application/json" },
  "/codicon.ttf": { file: "out/codicon.ttf", type: "font/ttf" },
  "/fake-vscode.js": { file: "test/browser/fixtures/fake-vscode.js", type: "text/javascript" },
  "/theme-dark.css": { file: "test/browser/fixtures/theme-dark.css", type: "text/css" },
  "/theme-light.css": { file: "test/browser/fixtures/theme-light.css", type: "text/css" },
  "/theme-hc.css": { file: "test/browser/fixtures/theme-hc.css", type: "text/css" },
};

async function start(): Promise<Shared> {
  const requests: string[] = [];
  let origin = "";
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(url.pathname);
    if (url.pathname === "/" || url.pathname === "/index.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      const theme = THEMES.find((t) => t === url.searchParams.get("theme")) ?? "dark";
      res.end(pageHtml(origin, url.searchParams.get("test") !== "0", theme));
      return;
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    // The highlighter (out/highlight.js) and its language chunks (out/hl-*.js), flat beside the bundle.
    const asset =
      STATIC[url.pathname] ?? (/^\/(highlight|hl-[\w-]+)\.js$/.test(url.pathname) ? { file: `out${url.pathname}`, type: "text/javascript" } : undefined);
    if (!asset) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(join(repoRoot, asset.file));
      res.writeHead(200, { "content-type": asset.type, "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: process.env.PI_CHAT_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [...CHROMIUM_LAUNCH_ARGS],
  });
  return {
    browser,
    server,
    origin,
    requests,
    async close() {
      await browser.close();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** The theme variable sets the page can be given, with the class VS Code puts on <body> for each. */
export const THEMES = ["dark", "light", "hc"] as const;
export type Theme = (typeof THEMES)[number];
const BODY_CLASS: Record<Theme, string> = { dark: "vscode-dark", light: "vscode-light", hc: "vscode-high-contrast" };

/** The page as the host builds it (src/host/views/chat-webview-provider.ts): meta CSP, stylesheet, one nonce'd script. */
function pageHtml(origin: string, testMode: boolean, theme: Theme): string {
  return webviewHtml({
    cspSource: origin,
    nonce: randomBytes(16)
      .toString("base64")
      .replace(/[^A-Za-z0-9]/g, ""),
    styles: [`${origin}/theme-${theme}.css`, `${origin}/webview.css`],
    scripts: [`${origin}/fake-vscode.js`, `${origin}/webview.js`],
    bodyAttributes: `class="${BODY_CLASS[theme]}"${testMode ? ` data-test="1"` : ""}`,
    title: "Pi Chat (browser test)",
  });
}

export const defaultStatus: ViewStatus = { modelLabel: "anthropic/claude-sonnet-4-5", storage: "workspace", canContinue: false, editsAllowedForChat: false };

export interface SnapshotOptions {
  chatId?: string;
  imageBase?: string;
  title?: string;
  status?: Partial<ViewStatus>;
  chats?: ChatSummary[];
  attachments?: PendingAttachment[];
}

declare global {
  interface Window {
    __posted: unknown[];
    __cspViolations: { directive: string; blockedURI: string; sample: string }[];
    __pwned?: unknown;
  }
}

/** One webview page and the host side of its protocol: sequenced messages in, posted messages out. */
export class ChatPage {
  /** The seq of the last message sent (the snapshot starts at 0). */
  seq = -1;
  readonly errors: string[] = [];
  readonly requestedUrls: string[] = [];
  /** Requests started and not yet finished or failed. */
  private requestsInFlight = 0;

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly origin: string,
  ) {}

  static async open(options: { width?: number; height?: number; testMode?: boolean; theme?: Theme } = {}): Promise<ChatPage> {
    const { browser, origin } = await shared();
    const context = await browser.newContext({ viewport: { width: options.width ?? 420, height: options.height ?? 760 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const chat = new ChatPage(context, page, origin);
    page.on("pageerror", (error) => chat.errors.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") chat.errors.push(`console.error: ${message.text()}`);
    });
    page.on("request", (request) => {
      chat.requestedUrls.push(request.url());
      chat.requestsInFlight++;
    });
    page.on("requestfinished", () => chat.requestsInFlight--);
    page.on("requestfailed", () => chat.requestsInFlight--);
    const query = new URLSearchParams();
    if (options.testMode === false) query.set("test", "0");
    if (options.theme) query.set("theme", options.theme);
    await page.goto(`${origin}/index.html${query.size > 0 ? `?${query}` : ""}`);
    await page.waitForFunction(() => window.__posted.some((m) => (m as { type?: string }).type === "view/ready"));
    return chat;
  }

  async close(): Promise<void> {
    await this.context.close();
  }

  /** Throws if the page logged an error or the CSP had to block anything. */
  async assertClean(): Promise<void> {
    const violations = await this.page.evaluate(() => window.__cspViolations);
    const problems = [...this.errors, ...violations.map((v) => `CSP violation: ${v.directive} ${v.blockedURI} ${v.sample}`)];
    if (problems.length > 0) throw new Error(`page was not clean:\n${problems.join("\n")}`);
  }

  async snapshot(state: ChatState = emptyChatState, options: SnapshotOptions = {}): Promise<void> {
    this.seq += 1;
    await this.postRaw([
      {
        type: "view/snapshot",
        v: 1,
        seq: this.seq,
        chatId: options.chatId ?? "chat-1",
        title: options.title ?? "Test chat",
        state,
        status: { ...defaultStatus, ...options.status },
        chats: options.chats ?? [],
        attachments: options.attachments ?? [],
        ...(options.imageBase ? { imageBase: options.imageBase } : {}),
      },
    ]);
    await this.settle();
  }

  /** Sends host messages with the next sequence numbers and waits until the view applied them. */
  async send(bodies: readonly HostMessageBody[]): Promise<void> {
    const messages = bodies.map((body) => {
      this.seq += 1;
      return { ...body, v: 1, seq: this.seq };
    });
    await this.postRaw(messages);
    await this.settle();
  }

  /** Sends chat events as the host's session does: an edit's diff text becomes hunks first (withStructuredDiff). */
  async events(events: readonly ChatEvent[]): Promise<void> {
    await this.send(events.map((event) => ({ type: "chat/event", event: withStructuredDiff(event) }) as const));
  }

  /** Sends chat events exactly as given, bypassing the host's diff structuring. */
  async rawEvents(events: readonly ChatEvent[]): Promise<void> {
    await this.send(events.map((event) => ({ type: "chat/event", event }) as const));
  }

  /** Posts messages as they are: each becomes its own `message` event, like the host's postMessage. */
  async postRaw(messages: readonly unknown[]): Promise<void> {
    await this.page.evaluate((list) => {
      for (const m of list) window.postMessage(m, "*");
    }, messages as unknown[]);
  }

  /** Waits until every sent message was applied and two frames were drawn (streamed markdown is parsed per frame). */
  async settle(): Promise<void> {
    const seq = this.seq;
    await this.page.waitForFunction((s) => window.__piChatTest?.lastSeq() === s, seq);
    await this.frames(2);
  }

  /**
   * The page has nothing left to do that the test could miss: every request it made has finished or
   * failed, and two frames were drawn after that (a load, an error or a navigation has fired by
   * then). What a test waits on before asserting that nothing happened, in place of a fixed wait.
   */
  async quiet(): Promise<void> {
    do await this.frames(2);
    while (this.requestsInFlight > 0);
  }

  async frames(count: number): Promise<void> {
    await this.page.evaluate(
      (n) =>
        new Promise<void>((done) => {
          const step = (left: number) => (left === 0 ? done() : requestAnimationFrame(() => step(left - 1)));
          step(n);
        }),
      count,
    );
  }

  async posted(): Promise<WebviewMessage[]> {
    return (await this.page.evaluate(() => window.__posted)) as WebviewMessage[];
  }

  async postedOf<T extends WebviewMessage["type"]>(type: T): Promise<Extract<WebviewMessage, { type: T }>[]> {
    return (await this.posted()).filter((m): m is Extract<WebviewMessage, { type: T }> => m.type === type);
  }

  async clearPosted(): Promise<void> {
    await this.page.evaluate(() => {
      window.__posted.length = 0;
    });
  }
}

/**
 * A fresh chat page for every test of the calling `describe` (with a first snapshot unless
 * `snapshot: false`), checked for CSP violations and page errors and closed after each.
 * Returns a getter: `const chat = useChatPage(); ... chat().events(...)`.
 */
/**
 * True once the element has the focus. A box that takes the focus does so in an effect after its
 * render, which a busy machine may run after the key press has returned; false (the assertion then
 * fails) if the page's own time-out passes first.
 */
export async function focusReaches(target: Locator): Promise<boolean> {
  const element = await target.elementHandle();
  try {
    await target.page().waitForFunction((el) => el === document.activeElement, element);
    return true;
  } catch {
    return false;
  }
}

export function useChatPage(options: { snapshot?: boolean } = {}): () => ChatPage {
  let page: ChatPage | undefined;
  beforeEach(async () => {
    page = await ChatPage.open();
    if (options.snapshot ?? true) await page.snapshot();
  });
  afterEach(async () => {
    await page?.assertClean();
    await page?.close();
  });
  return () => {
    if (!page) throw new Error("useChatPage: no page outside a test");
    return page;
  };
}
