// Starts a real VS Code (code-server from .test-vscode/, see scripts/setup-vscode.sh, or with
// PI_CHAT_VSCODE=latest the newest one from .test-vscode-latest/, see scripts/vscode.mjs) and a
// headless Debian Chromium on its workbench, for the extension-host tests and for end-to-end
// tests that drive the real UI.
//
//   import { startVSCode, findFrame } from "./browser.mjs";
//   const vs = await startVSCode({ extensionDevelopmentPath: repoRoot });
//   try {
//     // ...open the Pi Chat view (command palette, activity bar), then:
//     const frame = await findFrame(vs.page, "textarea");   // the webview's document
//     await frame.fill("textarea", "hello");
//     await frame.press("textarea", "Enter");
//     await frame.waitForSelector(".message.assistant");
//   } finally {
//     await vs.close();
//   }
//
// How a webview is found: VS Code renders each webview as two nested iframes served by
// code-server itself: an outer `.../out/vs/workbench/contrib/webview/browser/pre/index.html`
// (inside a `.webview` element of the workbench) and, inside it, the frame `#active-frame`
// (`fake.html`) whose document is the extension's HTML. Playwright's page.frames() lists every
// frame at any depth, so findFrame() polls it and returns the first frame in which a selector of
// the extension's own page matches; no need to know the nesting. Frames are replaced when a
// webview is reloaded or hidden/shown (unless retainContextWhenHidden), so look it up again
// after such a change rather than keeping a Frame across it.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, createWriteStream } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { selectedVSCode } from "./vscode.mjs";

export const repoRoot = resolve(new URL("..", import.meta.url).pathname);
/** The VS Code of this run (PI_CHAT_VSCODE): its folder, and the Node its code-server runs on. */
export const testVSCode = selectedVSCode();
export const testVSCodeDir = testVSCode.dir;
const codeServerEntry = join(testVSCodeDir, "node_modules/code-server/out/node/entry.js");

/** playwright-core from the VS Code's folder (installed by its setup script), else the repo's own. */
export function loadPlaywright() {
  for (const base of [testVSCodeDir, repoRoot]) {
    try {
      return createRequire(join(base, "package.json"))("playwright-core");
    } catch {
      /* try the next one */
    }
  }
  throw new Error("playwright-core not found: run `npm run setup:vscode`");
}

/** A free TCP port on 127.0.0.1 (asked from the OS; tiny race until code-server binds it). */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

// Settings for a quiet, deterministic workbench: no telemetry, no welcome page, no update or
// gallery checks (there is no internet), no trust prompt.
const defaultUserSettings = {
  "telemetry.telemetryLevel": "off",
  "workbench.startupEditor": "none",
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": false,
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "git.openRepositoryInParentFolders": "never",
  "window.restoreWindows": "none",
};

// With o.workspaceTrust: trust is on and nobody is asked, so the folder stays untrusted
// (Restricted Mode), as a cloned repository does until its user trusts it.
const untrustedSettings = {
  "security.workspace.trust.enabled": true,
  "security.workspace.trust.startupPrompt": "never",
  "security.workspace.trust.banner": "never",
  "security.workspace.trust.emptyWindow": false,
};

// Chromium flags: headless in a container as root (no sandbox, no GPU), and no background
// traffic of its own (there is no internet, and none should be attempted).
const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-features=Translate,MediaRouter,OptimizationHints",
];

async function waitForHealthz(url, server, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`code-server exited early (code ${server.exitCode}, signal ${server.signalCode})`);
    }
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms`);
}

/**
 * Kills a detached child's whole process group: code-server forks the server, extension host
 * and pty host, which may outlive it. (A group id stays valid while any member lives.)
 */
function killGroup(child, signal) {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* group already gone */
  }
}

/** Installs the extension in folder `dir` into `extensionsDir` as a link named as VS Code names installed ones. */
function linkIntoExtensions(extensionsDir, dir) {
  const dev = resolve(dir);
  const { publisher, name, version } = JSON.parse(readFileSync(join(dev, "package.json"), "utf8"));
  const link = join(extensionsDir, `${publisher}.${name}-${version}`);
  if (!existsSync(link)) symlinkSync(dev, link, "dir");
}

/**
 * Starts code-server on a free 127.0.0.1 port with fresh temp dirs, then Chromium on the
 * workbench of a temp workspace folder.
 *
 * @param {object} [o]
 * @param {string} [o.extensionDevelopmentPath] absolute folder of an extension to load in
 *   development mode (ExtensionMode.Test when extensionTestsPath is set too).
 * @param {string} [o.extensionTestsPath] absolute path of a module exporting `run(): Promise<void>`;
 *   the host runs it and then calls window.codeAutomationExit(code).
 * @param {string[]} [o.extraExtensions] absolute folders of more extensions, linked into the fresh
 *   extensions folder as user-installed ones (e.g. the host tests' model provider extension).
 * @param {number} [o.port] port for code-server (default: a free one). Restart tests pass the same
 *   port each time: code-server's workspace identity (and so workspace storage) includes host:port.
 * @param {string} [o.workspaceFixture] folder copied into the temp workspace (else it is empty).
 * @param {string} [o.workspaceFile] a `.code-workspace` file inside the fixture: the workbench opens
 *   it (a multi-root workspace) instead of the folder.
 * @param {string} [o.stateDir] keep everything (workspace, user data, extensions, XDG dirs,
 *   Chromium profile, where the workbench keeps its browser-side state) in this folder and
 *   don't delete it on close(), so a second startVSCode() with the same stateDir is "the same
 *   user reopening VS Code" (restart tests). The fixture is copied only when the workspace is new.
 * @param {Record<string,string>} [o.env] extra environment for code-server; it reaches the extension host.
 * @param {Record<string,any>} [o.userSettings] merged over the default User/settings.json.
 * @param {Record<string,Function>} [o.exposeFunctions] window functions, exposed before the
 *   workbench loads (e.g. codeAutomationLog / codeAutomationExit).
 * @param {(line: string) => void} [o.onBrowserConsole] browser console lines (the workbench is chatty).
 * @param {string} [o.serverLog] file for code-server's stdout/stderr (default: in the temp dir).
 * @param {{width:number,height:number}} [o.viewport]
 * @param {boolean} [o.waitForWorkbench=true] wait until `.monaco-workbench` is in the page.
 * @param {number} [o.startTimeoutMs=90000]
 * @param {(msg: string) => void} [o.log] progress messages (startup phases with timings).
 * @param {boolean} [o.handleSignals=true] let Playwright close Chromium and exit the process on
 *   SIGINT/SIGTERM/SIGHUP (our exit hook then kills code-server). Pass false if the caller
 *   handles these signals itself and calls close().
 * @param {AbortSignal} [o.signal] aborts the start: everything started so far is killed and
 *   startVSCode rejects. (After it resolved, use close().)
 * @returns {Promise<{page: import("playwright-core").Page, context: import("playwright-core").BrowserContext,
 *   port: number, baseUrl: string, url: string, workspace: string, userDataDir: string,
 *   tmpRoot: string, serverLog: string, close: () => Promise<void>}>}
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one start of code-server and Chromium with the one shutdown every step shares; split, that state would be spread over functions
export async function startVSCode(o = {}) {
  if (!existsSync(codeServerEntry) || !existsSync(testVSCode.node)) {
    throw new Error(`code-server ${testVSCode.codeServer} (VS Code ${testVSCode.id}) not installed: run \`${testVSCode.setup}\` (or npm run setup)`);
  }
  const { chromium } = loadPlaywright();
  const t0 = Date.now();
  const progress = (msg) => o.log?.(`${msg} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

  // Everything of this run lives in one temp dir, removed by close() (unless o.stateDir).
  const keep = !!o.stateDir;
  const tmpRoot = keep ? resolve(o.stateDir) : mkdtempSync(join(tmpdir(), "pi-chat-vscode-"));
  const freshWorkspace = !existsSync(join(tmpRoot, "workspace"));
  const dirs = {};
  for (const d of ["workspace", "user-data", "extensions", "xdg-config", "xdg-data", "xdg-cache", "xdg-runtime", "chromium-profile"]) {
    dirs[d] = join(tmpRoot, d);
    mkdirSync(dirs[d], { recursive: true, mode: 0o700 });
  }
  const workspace = dirs.workspace;
  if (o.workspaceFixture && freshWorkspace) cpSync(resolve(o.workspaceFixture), workspace, { recursive: true });
  mkdirSync(join(dirs["user-data"], "User"), { recursive: true });
  writeFileSync(
    join(dirs["user-data"], "User/settings.json"),
    JSON.stringify({ ...defaultUserSettings, ...(o.workspaceTrust ? untrustedSettings : {}), ...o.userSettings }, null, 2),
  );
  const emptyConfig = join(tmpRoot, "code-server.yaml"); // so it neither reads nor writes ~/.config
  writeFileSync(emptyConfig, "");

  // A workbench that reads the URL's payload only with the smoke-test driver on (1.139): the driver
  // also hides notification toasts and keeps the focus from the chat panel on the right, so the
  // workbench would not be the one a user sees. So only the host tests (extensionTestsPath, which
  // need the payload) turn it on; the end-to-end tests install the extension under test instead, a
  // link to its folder in the fresh extensions folder (read at the server's first start, as a
  // user-installed extension), and the workbench runs as it does for a user.
  const smokeTestDriver = testVSCode.payloadNeedsSmokeTestDriver && !!o.extensionTestsPath;
  const linkExtension = testVSCode.payloadNeedsSmokeTestDriver && !o.extensionTestsPath && !!o.extensionDevelopmentPath;
  if (linkExtension) linkIntoExtensions(dirs.extensions, o.extensionDevelopmentPath);

  for (const extra of o.extraExtensions ?? []) linkIntoExtensions(dirs.extensions, extra);

  const port = o.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const serverLog = o.serverLog ?? join(tmpRoot, "code-server.log");
  const logStream = createWriteStream(serverLog, { flags: "a" });

  // Don't let a surrounding VS Code (integrated terminal) leak its IPC/env into this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VSCODE_|ELECTRON_)/.test(k)));
  Object.assign(env, {
    XDG_CONFIG_HOME: dirs["xdg-config"],
    XDG_DATA_HOME: dirs["xdg-data"],
    XDG_CACHE_HOME: dirs["xdg-cache"],
    XDG_RUNTIME_DIR: dirs["xdg-runtime"],
    // No extension gallery (code-server defaults to open-vsx.org, unreachable: log noise).
    EXTENSIONS_GALLERY: process.env.EXTENSIONS_GALLERY ?? "{}",
    // Which VS Code this is (scripts/vscode.mjs), for the tests in its extension host to check.
    PI_CHAT_TEST_VSCODE: testVSCode.id,
    ...o.env,
  });
  let server;
  let context;
  let launching; // Chromium's launch, so close() during the start can wait for it and close it
  let closed = false;
  let closing = null;
  // Last resort if our caller exits without close(): kill the server group, remove the temp
  // dir (best effort: Chromium, killed by Playwright's own exit hook, may still write to it).
  const onExit = () => {
    killGroup(server, "SIGKILL");
    try {
      if (!keep) rmSync(tmpRoot, { recursive: true, force: true });
    } catch {
      /* left in the temp folder */
    }
  };
  process.once("exit", onExit);
  // Every caller (abort, a failed start, the user) waits for the same single shutdown.
  const close = () => (closing ??= shutdown());
  const shutdown = async () => {
    closed = true;
    // Browser first (its socket to the server), then the server's whole process group.
    const ctx = context ?? (await launching?.catch(() => null));
    await ctx?.close().catch(() => {});
    if (server) {
      const exited = new Promise((r) => (server.exitCode !== null || server.signalCode !== null ? r() : server.once("exit", r)));
      killGroup(server, "SIGTERM");
      const t = setTimeout(() => killGroup(server, "SIGKILL"), 3000);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      clearTimeout(t);
      killGroup(server, "SIGKILL"); // children that outlived the parent are still in the group
    }
    await new Promise((r) => logStream.end(r));
    if (!keep) rmSync(tmpRoot, { recursive: true, force: true, maxRetries: 3 });
    process.off("exit", onExit);
  };
  const onAbort = () => void close();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const checkAborted = () => {
    if (closed) throw new Error("startVSCode aborted");
  };

  try {
    // detached: own process group, so close() can kill the extension host and pty host too.
    // Its own Node: the newest code-server wants Node 24 (from npm), the extension host runs on it too.
    server = spawn(
      testVSCode.node,
      [
        codeServerEntry,
        "--config",
        emptyConfig,
        "--auth",
        "none",
        "--bind-addr",
        `127.0.0.1:${port}`,
        "--disable-telemetry",
        "--disable-update-check",
        // o.workspaceTrust: trust on, and the folder (never trusted here) opens in Restricted Mode.
        ...(o.workspaceTrust ? [] : ["--disable-workspace-trust"]),
        "--disable-getting-started-override",
        ...(smokeTestDriver ? ["--vscode-option", "enable-smoke-test-driver"] : []),
        "--ignore-last-opened",
        "--extensions-dir",
        dirs.extensions,
        "--user-data-dir",
        dirs["user-data"],
        workspace,
      ],
      { env, cwd: tmpRoot, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    server.stdout.pipe(logStream, { end: false });
    server.stderr.pipe(logStream, { end: false });
    await waitForHealthz(`${baseUrl}/healthz`, server, o.startTimeoutMs ?? 90_000);
    checkAborted();
    progress(`code-server ${testVSCode.codeServer} (VS Code ${testVSCode.id}) up on port ${port}`);

    // A persistent context on a profile inside tmpRoot: fresh per run, and removed by close()
    // even if Chromium was killed (Playwright's own temp profile would be left behind then).
    launching = chromium.launchPersistentContext(dirs["chromium-profile"], {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      headless: true,
      args: chromiumArgs,
      viewport: o.viewport ?? { width: 1400, height: 900 },
      timeout: 60_000,
      handleSIGINT: o.handleSignals ?? true,
      handleSIGTERM: o.handleSignals ?? true,
      handleSIGHUP: o.handleSignals ?? true,
    });
    context = await launching;
    checkAborted();
    const page = context.pages()[0] ?? (await context.newPage());
    progress("chromium up");
    if (o.onBrowserConsole) {
      page.on("console", (m) => o.onBrowserConsole(`[${m.type()}] ${m.text()}`));
      page.on("pageerror", (e) => o.onBrowserConsole(`[pageerror] ${e.message}`));
    }
    for (const [name, fn] of Object.entries(o.exposeFunctions ?? {})) await page.exposeFunction(name, fn);

    // The payload is how a web workbench gets the CLI's --extensionDevelopmentPath etc.; the
    // paths are URIs on the remote (code-server) with the authority the browser uses.
    const remote = (p) => `vscode-remote://127.0.0.1:${port}${resolve(p)}`;
    const payload = [["skipWelcome", "true"]];
    if (o.extensionDevelopmentPath && !linkExtension) payload.push(["extensionDevelopmentPath", remote(o.extensionDevelopmentPath)]);
    if (o.extensionTestsPath) payload.push(["extensionTestsPath", remote(o.extensionTestsPath)]);
    const opened = o.workspaceFile ? `workspace=${encodeURIComponent(join(workspace, o.workspaceFile))}` : `folder=${encodeURIComponent(workspace)}`;
    const url = `${baseUrl}/?${opened}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    await page.goto(url, { waitUntil: "domcontentloaded", timeout: 60_000 });
    progress("workbench page loaded");
    if (o.waitForWorkbench ?? true) {
      await page.waitForSelector(".monaco-workbench", { timeout: 60_000 });
      progress("workbench rendered");
    }

    checkAborted();
    o.signal?.removeEventListener("abort", onAbort);
    return { page, context, port, baseUrl, url, workspace, userDataDir: dirs["user-data"], tmpRoot, serverLog, close };
  } catch (err) {
    o.signal?.removeEventListener("abort", onAbort);
    await close();
    throw err;
  }
}

/**
 * Polls page.frames() (all frames, nested ones included) until one contains `selector`;
 * returns that Frame. Used to find a webview's document (see the comment at the top).
 * @param {import("playwright-core").Page} page
 * @param {string} selector a selector of the frame's own page, e.g. "#pi-chat-root textarea"
 * @param {{timeout?: number, url?: RegExp}} [opts] url: only frames whose URL matches
 * @returns {Promise<import("playwright-core").Frame>}
 */
export async function findFrame(page, selector, { timeout = 30_000, url } = {}) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame.isDetached() || (url && !url.test(frame.url()))) continue;
      try {
        if (await frame.$(selector)) return frame;
      } catch {
        /* frame navigated or detached meanwhile */
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `no frame with ${selector} within ${timeout} ms (frames: ${page
      .frames()
      .map((f) => f.url())
      .join(", ")})`,
  );
}
