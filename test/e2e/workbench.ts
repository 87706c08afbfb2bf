// What every end-to-end test shares: the launcher of the real workbench (scripts/browser.mjs,
// code-server + Chromium), the Pi Chat settings that point it at the local OpenAI-compatible
// server, and the composer's selector. Inlined into each test's bundle (so `__dirname` is
// out/test/e2e there).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Frame, Page } from "playwright-core";
import type { OpenAIServer } from "../support/openai-server";

export interface VSCodeHandle {
  page: Page;
  workspace: string;
  userDataDir: string;
  close(): Promise<void>;
}

export interface BrowserModule {
  repoRoot: string;
  startVSCode(options: Record<string, unknown>): Promise<VSCodeHandle>;
  findFrame(page: Page, selector: string, options?: { timeout?: number }): Promise<Frame>;
}

export const repoRoot = join(__dirname, "../../..");

/** The launcher is an ES module of the repository, loaded at run time (a computed path). */
export const loadBrowser = () => import(pathToFileURL(join(repoRoot, "scripts/browser.mjs")).href) as Promise<BrowserModule>;

export const COMPOSER = 'textarea[aria-label="Message to Pi"]';

/** The real workbench with this extension over a copy of `test/fixtures/<fixture>`; its log goes to the test's output. */
export async function startWorkbench(options: { fixture: string; workspaceFile?: string; userSettings: Record<string, unknown> }): Promise<VSCodeHandle> {
  const browser = await loadBrowser();
  return browser.startVSCode({
    extensionDevelopmentPath: repoRoot,
    workspaceFixture: join(repoRoot, "test/fixtures", options.fixture),
    ...(options.workspaceFile ? { workspaceFile: options.workspaceFile } : {}),
    userSettings: options.userSettings,
    log: (line: string) => console.log(`  [vscode] ${line}`),
  });
}

/** User settings for Pi Chat with the local server as its model, plus `extra`. */
export function localModelSettings(server: OpenAIServer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { "piChat.provider": "openai-compatible", "piChat.baseUrl": `${server.url}/v1`, "piChat.model": "local-model", ...extra };
}

/**
 * Commands as child processes, not in the "Pi Chat" terminal: the terminal path has tests of its
 * own (test/host/terminal-nets.test.ts); under load VS Code can lose track of a terminal's command,
 * and its card then says so, which is not what tests of cards and dialogs are about.
 */
export const CHILD_PROCESS_COMMANDS = { "piChat.commands.useTerminal": false } as const;

/** `read()` until it gives a value, every 200 ms, at most `timeoutMs`. */
export async function poll<T>(what: string, read: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Opens a workspace file with Quick Open (Ctrl+P), as a user would: the editor has the focus after it. */
export async function quickOpenFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press("Control+P");
  const quickInput = page.locator(".quick-input-widget input");
  await quickInput.waitFor({ timeout: 30_000 });
  await quickInput.pressSequentially(name);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: name }).first().waitFor({ timeout: 30_000 });
  await quickInput.press("Enter");
  await page.locator(".editor-instance .monaco-editor.focused").waitFor({ timeout: 30_000 });
}
