// What every end-to-end test shares: the launcher of the real workbench (scripts/browser.mjs,
// code-server + Chromium), the Pi Chat settings that point it at the local OpenAI-compatible
// server, and the composer's selector. Inlined into each test's bundle (so `__dirname` is
// out/test/e2e there).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Frame, Locator, Page } from "playwright-core";
import type { OpenAIServer } from "../support/openai-server";
import { waitFor } from "../support/wait-for";

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

/** `read()` until it gives a value (undefined: not yet), through the suites' one `waitFor`. */
export async function poll<T>(what: string, read: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const found = await waitFor(
    what,
    async () => {
      const value = await read();
      return value === undefined ? undefined : { value };
    },
    { timeoutMs, intervalMs: 200 },
  );
  return found.value;
}

/**
 * Opens the quick input with `key` (Ctrl+P, F1) and types `value` into it, once the focus is in its
 * input: keys sent before that go to whatever had the focus, and on a busy machine the input is on
 * screen a while before it has it.
 */
async function typeIntoQuickInput(page: Page, key: string, value: string): Promise<Locator> {
  await page.keyboard.press(key);
  const quickInput = page.locator(".quick-input-widget input");
  await poll("the quick input to take keys", async () =>
    (await quickInput.evaluate((el) => el === document.activeElement).catch(() => false)) ? true : undefined,
  );
  await quickInput.fill(value);
  return quickInput;
}

/** Opens a workspace file with Quick Open (Ctrl+P), as a user would: the editor has the focus after it. */
export async function quickOpenFile(page: Page, name: string): Promise<void> {
  const quickInput = await typeIntoQuickInput(page, "Control+P", name);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: name }).first().waitFor({ timeout: 30_000 });
  await quickInput.press("Enter");
  await page.locator(".editor-instance .monaco-editor.focused").waitFor({ timeout: 30_000 });
}

/**
 * Runs a command from the Command Palette (F1), as a user would, and clicks its row (`row`, else
 * the row showing `title`). Pi Chat's contributions are awaited first (its activity bar entry):
 * the palette lists the commands known when it opens and does not add later ones, and on a busy
 * machine the workbench is drawn before the extension's contributions are read.
 */
export async function runCommand(page: Page, title: string, row: string | RegExp = title): Promise<void> {
  await page.locator('.activitybar [aria-label^="Pi Chat"]').first().waitFor({ timeout: 60_000 });
  await typeIntoQuickInput(page, "F1", `>${title}`);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: row }).first().click({ timeout: 30_000 });
}
