// Activation: cheap and lazy. Registers the view, the commands and the stores; the provider
// SDKs (out/providers.js) load on the first prompt.
import * as path from "node:path";
import * as vscode from "vscode";
import type { WorkspaceFileSystem } from "../core/tools";
import { IMAGES_DIR } from "../core/transcript/image-blobs";
import { ChatViewProvider } from "./views/chat-webview-provider";
import { ChatHost } from "./chat-host";
import { registerChatCommands } from "./palette/chat-commands";
import { HostShellCommands } from "./shell/shell-commands";
import { HostMcp } from "./mcp/host-mcp";
import { ModelContextDocuments } from "./views/model-context-view";
import { ProposalDiffs } from "./views/diff-view";
import { CodeApplier } from "./code-blocks/apply-code";
import { CodeInserter } from "./code-blocks/insert-code";
import { TerminalLauncher } from "./code-blocks/run-in-terminal";
import { protectedFilesSetting } from "./settings";
import { PROVIDER_IDS, SecretKeys } from "./models/providers-loader";
import { DEFAULT_SYSTEM_PROMPT } from "../core/session/types";
import { multiRootPrompt } from "../core/tools/multi-root";
import { createWorkspaceTools } from "./adapters/discovery";
import { WorkspacePaths } from "./adapters/workspace-paths";
import { createVscodeWorkspaceFs } from "./adapters/vscode-fs";
import { createHostCheckpointIo, HostCheckpoints } from "./checkpoints/host-checkpoints";
import { BaseUrlConsent } from "./models/base-url-consent";
import { addEnvironmentKeys, keyRedactor, redact } from "./models/key-redaction";
import { PlanDrafts } from "./plans/plan-drafts";
import { ProviderSignIns } from "./models/provider-sign-in";

/** What activate() returns in the extension's own tests: handles on the real objects. */
export interface PiChatTestApi {
  host: ChatHost;
  /** The chat on screen (the tests read its session). */
  screen: ChatHost["screen"];
  storageDir: string;
  view: ChatViewProvider;
  diffs: ProposalDiffs;
  modelContext: ModelContextDocuments;
  secrets: SecretKeys;
  /** Sign-in to providers (its testFlows and confirmOpen/openExternal are the tests' seams). */
  signIns: ProviderSignIns;
  consent: BaseUrlConsent;
  redactor: typeof keyRedactor;
  output: vscode.OutputChannel;
  logLines: string[];
  commands: HostShellCommands;
  codeApplier: CodeApplier;
  codeInserter: CodeInserter;
  mcp: HostMcp;
  terminals: TerminalLauncher;
  checkpoints: HostCheckpoints | undefined;
}

export async function activate(context: vscode.ExtensionContext): Promise<PiChatTestApi | undefined> {
  const output = vscode.window.createOutputChannel("Pi Chat", { log: true });
  const testMode = context.extensionMode === vscode.ExtensionMode.Test;
  const logLines: string[] = [];
  // Every line is redacted: errors quote what providers said, and a provider may quote the key.
  addEnvironmentKeys();
  const log = (raw: string) => {
    const line = redact(raw);
    output.info(line);
    if (testMode) logLines.push(line);
  };

  const folder = vscode.workspace.workspaceFolders?.[0];
  const storageUri = context.storageUri ?? context.globalStorageUri;
  const storageKind = context.storageUri ? "workspace" : "globalFallback";
  await vscode.workspace.fs.createDirectory(storageUri);
  if (storageKind === "globalFallback") log("No folder is open: chats are saved in the global storage, and the tools have no files to read.");

  const secrets = new SecretKeys(context.secrets);
  const consent = new BaseUrlConsent(context.globalState);
  // Sign-ins' refreshes share a lock across windows, beside the MCP tokens' locks.
  const signIns = new ProviderSignIns(context.secrets, path.join(context.globalStorageUri.fsPath, "sign-in-locks"), log);
  // Known before any request, so even a first error that quotes one is redacted.
  void Promise.all(PROVIDER_IDS.map((p) => secrets.get(p).catch(() => undefined)));
  // The folders as they are at activation: adding or removing one reloads the extension host.
  const paths = new WorkspacePaths(vscode.workspace.workspaceFolders);
  const diffs = new ProposalDiffs((p) => paths.uriOf(p));
  const tools = createWorkspaceTools(
    paths.folders.map((f) => ({ ...f, fs: createVscodeWorkspaceFs(f.uri) })),
    log,
  );
  // Checkpoints: in the window's storage, for folders on disk; a restore a crash cut off is finished first.
  const checkpointIo = createHostCheckpointIo(paths);
  const checkpoints = checkpointIo ? new HostCheckpoints(storageUri.fsPath, checkpointIo, paths, tools?.discovery.rules ?? (() => ({})), log) : undefined;
  await checkpoints?.recoverAtStart();
  // Apply to file is recorded under the chat on screen (the chat host is made below).
  let currentChatId: (() => string) | undefined;
  const codeInserter = new CodeInserter();
  const codeApplier = new CodeApplier({
    paths,
    fs: tools?.fs ?? noFolderFs,
    workspaceRoot: paths.multiRoot ? undefined : folder?.uri,
    diffs,
    protectedFiles: protectedFilesSetting,
    log,
    ...(checkpoints
      ? {
          recordWrite: <T>(path: string, write: () => Promise<T>) =>
            currentChatId ? checkpoints.checkpoints.recordWrite(currentChatId(), "apply", path, write) : write(),
        }
      : {}),
  });
  const terminals = new TerminalLauncher(paths, log);
  const commands = new HostShellCommands(context, vscode.Uri.joinPath(storageUri, "command-output").fsPath, paths.folders, log);
  const mcp = new HostMcp({
    context,
    workspaceFolder: folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined,
    outputDir: commands.logRoot,
    lockDir: path.join(context.globalStorageUri.fsPath, "mcp-oauth-locks"),
    log,
  });
  activeMcp = mcp;
  endRunsOnDeactivate = () => commands.endAllRuns();
  let modelContext: ModelContextDocuments | undefined;
  const host = new ChatHost({
    storageDir: storageUri.fsPath,
    storageKind,
    // Absolute paths are accepted inside the one folder; with several, paths name their folder.
    workspaceRoot: paths.multiRoot ? undefined : folder?.uri,
    paths,
    ...(paths.multiRoot
      ? {
          systemPrompt: `${DEFAULT_SYSTEM_PROMPT}\n${multiRootPrompt(paths.folders.map((f) => ({ name: f.name, location: f.uri.scheme === "file" ? f.uri.fsPath : f.uri.toString() })))}`,
        }
      : {}),
    fs: tools?.fs ?? noFolderFs,
    ...(tools ? { discovery: tools.discovery } : {}),
    secrets,
    signIns,
    consent,
    diffs,
    editor: { codeApplier, codeInserter, terminals, plans: new PlanDrafts() },
    commands,
    mcp,
    ...(checkpoints ? { checkpoints } : {}),
    pendingState: context.workspaceState,
    log,
    onRequest: (capture) => modelContext?.requestSent(capture),
  });
  const { screen, status } = host;
  currentChatId = () => screen.currentChatId;
  modelContext = new ModelContextDocuments((chatId) => {
    const session = screen.service.get(chatId);
    return session ? { session, title: screen.chatTitle(chatId) } : undefined;
  });
  const view = new ChatViewProvider(context.extensionUri, host, log, { recordPosted: testMode, imagesRoot: vscode.Uri.joinPath(storageUri, IMAGES_DIR) });
  host.attachView(view);

  context.subscriptions.push(
    output,
    diffs,
    modelContext,
    view,
    host,
    commands,
    mcp,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, view),
    ...registerChatCommands({ context, host, view, secrets, mcp, modelContext, log }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("piChat")) status.refresh();
    }),
  );

  await screen.restore();
  void host.models.refreshKeys();
  void screen.deletion.emptyOldTrash();
  log(`activated (storage: ${storageKind} at ${storageUri.fsPath})`);
  return testMode
    ? {
        host,
        screen,
        storageDir: storageUri.fsPath,
        view,
        diffs,
        modelContext,
        secrets,
        signIns,
        consent,
        redactor: keyRedactor,
        output,
        logLines,
        commands,
        codeApplier,
        codeInserter,
        mcp,
        terminals,
        checkpoints,
      }
    : undefined;
}

/** The MCP servers of this window: deactivate waits until their processes (and children) ended. */
let activeMcp: HostMcp | undefined;
/** Ends every command's processes when VS Code closes (set by activate). */
let endRunsOnDeactivate: (() => Promise<void>) | undefined;
/**
 * The most deactivation waits for the killed processes to be gone: VS Code gives deactivate a few
 * seconds before it stops the extension host, and SIGKILL takes effect in milliseconds.
 */
const DEACTIVATE_KILL_WAIT_MS = 3000;

export async function deactivate(): Promise<void> {
  // Killed at once, not after a grace: a process that ignores SIGTERM would outlive the extension host.
  // The chat host is disposed with the subscriptions afterwards; its store flushes the index.
  const ending = Promise.all([endRunsOnDeactivate?.(), activeMcp?.dispose()]);
  endRunsOnDeactivate = undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([ending, new Promise((r) => (timer = setTimeout(r, DEACTIVATE_KILL_WAIT_MS)))]);
  clearTimeout(timer);
}

/** With no folder open there are no workspace files: every tool call says so. */
const noFolderFs: WorkspaceFileSystem = {
  stat: () => Promise.reject(new Error("No folder is open in VS Code, so there are no workspace files to read or edit.")),
  readFile: () => Promise.reject(new Error("No folder is open in VS Code.")),
  writeFile: () => Promise.reject(new Error("No folder is open in VS Code.")),
  realPath: () => Promise.resolve({ inside: false }),
  readDirectory: () => Promise.reject(new Error("No folder is open in VS Code.")),
};
