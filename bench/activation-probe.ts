// P5 helper, run in a fresh Node process by bench/run.ts:
//   node out/bench/activation-probe.cjs <repo>/out/extension.js
// Loads the activation bundle the way the extension host would (require, then activate(context))
// with a stub `vscode` module (served through a Module._resolveFilename hook), records every file
// that gets loaded (Module._load hook) until activation has settled, and prints JSON: the files and
// their sizes, whether a provider SDK or out/providers.js was loaded, and which parts of the vscode
// API the stub had to fake generically. Nothing is prompted, so no provider should load.
import Module from "node:module";
import { mkdirSync, mkdtempSync, statSync } from "node:fs";
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";

interface ModuleInternals {
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
  _load(request: string, parent: unknown, isMain: boolean): unknown;
  _cache: Record<string, unknown>;
}
const M = Module as unknown as ModuleInternals & typeof Module;

const extensionFile = resolve(process.argv[2] ?? "out/extension.js");
const outDir = dirname(extensionFile);
const repoRoot = dirname(outDir);
const STUB_ID = "\0vscode-stub";

// ---- the stub vscode API ----

const generic = new Set<string>();

/** Anything the stub does not define: callable, constructible, every property another such object; never thenable. */
function auto(path: string): unknown {
  const cache = new Map<PropertyKey, unknown>();
  const fn = function () {} as unknown as object;
  return new Proxy(fn, {
    get(_t, prop) {
      if (prop === "then") return undefined;
      if (prop === Symbol.toPrimitive) return () => "";
      if (prop === Symbol.iterator) return function* () {};
      if (typeof prop === "symbol") return undefined;
      if (!cache.has(prop)) cache.set(prop, auto(`${path}.${prop}`));
      return cache.get(prop);
    },
    apply() {
      generic.add(`${path}()`);
      return auto(`${path}()`);
    },
    construct() {
      generic.add(`new ${path}`);
      return auto(`new ${path}`) as object;
    },
  });
}

function withFallback<T extends object>(path: string, real: T): T {
  return new Proxy(real, {
    get(target, prop, receiver) {
      if (prop in target || typeof prop === "symbol") return Reflect.get(target, prop, receiver);
      generic.add(`${path}.${String(prop)}`);
      return auto(`${path}.${String(prop)}`);
    },
  });
}

class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static file(p: string): Uri {
    return new Uri("file", "", resolve(p).replace(/\\/g, "/"), "", "");
  }
  static parse(value: string): Uri {
    const u = new URL(value);
    return new Uri(u.protocol.replace(/:$/, ""), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ""), u.hash.replace(/^#/, ""));
  }
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? "", c.path ?? "", c.query ?? "", c.fragment ?? "");
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, base.authority, join(base.path, ...segments).replace(/\\/g, "/"), base.query, base.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  with(c: Partial<{ scheme: string; authority: string; path: string; query: string; fragment: string }>): Uri {
    return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? "?" + this.query : ""}${this.fragment ? "#" + this.fragment : ""}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private listeners = new Set<(e: T) => void>();
  readonly event = (listener: (e: T) => void): Disposable => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of this.listeners) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

class ThemeIcon {
  constructor(readonly id: string) {}
}

class ThemeColor {
  constructor(readonly id: string) {}
}

class RelativePattern {
  constructor(
    readonly base: unknown,
    readonly pattern: string,
  ) {}
}

class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
  static FileNotFound(uri?: unknown): FileSystemError {
    return new FileSystemError(`not found: ${String(uri)}`, "FileNotFound");
  }
}

const event = () => new Disposable();
const scratch = mkdtempSync(join(tmpdir(), "pi-chat-p5-"));
const workspaceDir = join(scratch, "workspace");
mkdirSync(workspaceDir, { recursive: true });

const toFsError = (e: unknown): unknown => ((e as { code?: string }).code === "ENOENT" ? FileSystemError.FileNotFound(e) : e);
const workspaceFs = {
  createDirectory: async (uri: Uri) => void (await fsp.mkdir(uri.fsPath, { recursive: true })),
  readFile: async (uri: Uri) => fsp.readFile(uri.fsPath).catch((e) => Promise.reject(toFsError(e))),
  writeFile: async (uri: Uri, data: Uint8Array) => fsp.writeFile(uri.fsPath, data),
  stat: async (uri: Uri) => {
    const s = await fsp.stat(uri.fsPath).catch((e) => Promise.reject(toFsError(e)));
    return { type: s.isDirectory() ? 2 : 1, size: s.size, mtime: s.mtimeMs, ctime: s.ctimeMs };
  },
  readDirectory: async (uri: Uri) => (await fsp.readdir(uri.fsPath, { withFileTypes: true })).map((d) => [d.name, d.isDirectory() ? 2 : 1]),
  delete: async (uri: Uri) => fsp.rm(uri.fsPath, { recursive: true, force: true }),
  rename: async (a: Uri, b: Uri) => fsp.rename(a.fsPath, b.fsPath),
};

const configuration = { get: (_key: string, fallback?: unknown) => fallback, has: () => false, inspect: () => undefined, update: async () => undefined };

const vscodeStub = {
  __esModule: false,
  Uri,
  Disposable,
  EventEmitter,
  FileSystemError,
  ThemeIcon,
  ThemeColor,
  RelativePattern,
  FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
  ExtensionMode: { Production: 1, Development: 2, Test: 3 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  OverviewRulerLane: { Left: 1, Center: 2, Right: 4, Full: 7 },
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  TextEditorRevealType: { Default: 0, InCenter: 1, InCenterIfOutsideViewport: 2, AtTop: 3 },
  EndOfLine: { LF: 1, CRLF: 2 },
  window: withFallback("vscode.window", {
    createOutputChannel: () =>
      withFallback("OutputChannel", { info() {}, warn() {}, error() {}, debug() {}, trace() {}, append() {}, appendLine() {}, show() {}, dispose() {} }),
    registerWebviewViewProvider: () => new Disposable(),
    activeTextEditor: undefined,
    visibleTextEditors: [],
    onDidChangeActiveTextEditor: event,
  }),
  // An app root with no ripgrep under it: activation looks for VS Code's rg there (src/host/adapters/discovery.ts).
  env: withFallback("vscode.env", { appRoot: join(scratch, "vscode-app-root"), language: "en", uiKind: 1 }),
  commands: withFallback("vscode.commands", { registerCommand: () => new Disposable(), executeCommand: async () => undefined }),
  // Named here, not left to the fallback: the bundle's ESM interop copies only the stub's own names.
  languages: withFallback("vscode.languages", { registerCodeLensProvider: () => new Disposable() }),
  workspace: withFallback("vscode.workspace", {
    workspaceFolders: [{ uri: Uri.file(workspaceDir), name: "workspace", index: 0 }],
    textDocuments: [],
    fs: workspaceFs,
    getConfiguration: () => configuration,
    onDidChangeConfiguration: event,
    registerTextDocumentContentProvider: () => new Disposable(),
    getWorkspaceFolder: () => undefined,
  }),
};

const memento = () => {
  const data = new Map<string, unknown>();
  return {
    get: (k: string, d?: unknown) => (data.has(k) ? data.get(k) : d),
    update: async (k: string, v: unknown) => void data.set(k, v),
    keys: () => [...data.keys()],
    setKeysForSync() {},
  };
};

const context = withFallback("ExtensionContext", {
  subscriptions: [] as { dispose(): unknown }[],
  extensionUri: Uri.file(repoRoot),
  extensionPath: repoRoot,
  storageUri: Uri.file(join(scratch, "storage")),
  globalStorageUri: Uri.file(join(scratch, "global")),
  logUri: Uri.file(join(scratch, "log")),
  extensionMode: 1,
  workspaceState: memento(),
  globalState: memento(),
  secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: event },
  asAbsolutePath: (p: string) => join(repoRoot, p),
});

// ---- hooks ----

const stubModule = new Module(STUB_ID);
stubModule.exports = withFallback("vscode", vscodeStub);
stubModule.loaded = true;
M._cache[STUB_ID] = stubModule;

const originalResolve = M._resolveFilename;
M._resolveFilename = function (request, parent, isMain, options) {
  if (request === "vscode") return STUB_ID;
  return originalResolve.call(this, request, parent, isMain, options);
};

const loaded = new Map<string, number>();
const builtins = new Set<string>();
const originalLoad = M._load;
M._load = function (request, parent, isMain) {
  let filename: string | undefined;
  try {
    filename = M._resolveFilename(request, parent, isMain);
  } catch {
    /* let the real load throw */
  }
  if (filename === STUB_ID) {
    builtins.add("vscode (stub)");
  } else if (filename && (Module.isBuiltin?.(filename) || filename.startsWith("node:"))) {
    builtins.add(filename.replace(/^node:/, ""));
  } else if (filename && !loaded.has(filename)) {
    let size = 0;
    try {
      size = statSync(filename).size;
    } catch {
      /* virtual */
    }
    loaded.set(filename, size);
  }
  return originalLoad.call(this, request, parent, isMain);
};

const PROVIDER_SDK = [/[\\/]node_modules[\\/]openai[\\/]/, /[\\/]node_modules[\\/]@anthropic-ai[\\/]sdk[\\/]/, /[\\/]node_modules[\\/]@google[\\/]genai[\\/]/];

async function main(): Promise<void> {
  const result: Record<string, unknown> = { extensionFile };
  const t0 = performance.now();
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extension = require(extensionFile) as { activate(context: unknown): unknown };
    result["requireMs"] = performance.now() - t0;
    await extension.activate(context);
    result["activated"] = true;
  } catch (error) {
    result["activated"] = false;
    result["error"] = error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error);
  }
  result["activateMs"] = performance.now() - t0;
  // Whatever activation started lazily (restore, timers) gets a moment to load its modules too.
  await new Promise((r) => setTimeout(r, 300));
  const files = [...loaded].map(([file, bytes]) => ({ file, bytes }));
  result["files"] = files;
  result["totalBytes"] = files.reduce((n, f) => n + f.bytes, 0);
  result["builtins"] = [...builtins].sort();
  result["providersBundleLoaded"] = files.some((f) => basename(f.file) === "providers.js" && dirname(f.file) === outDir);
  result["providerSdkFiles"] = files.filter((f) => PROVIDER_SDK.some((re) => re.test(f.file))).map((f) => f.file);
  result["genericStubUses"] = [...generic].sort();
  for (const d of (context as { subscriptions: { dispose(): unknown }[] }).subscriptions) {
    try {
      d.dispose();
    } catch {
      /* ignore */
    }
  }
  await fsp.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(0);
}

void main();
