// The workspace's one ChatService, made from the host's parts: storage, the tools' file system,
// settings read when needed, the model resolver, the approvers, the request's context steps
// (project instructions, then the skills list), MCP, checkpoints and the locks shared with other windows.
import * as path from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService, type ChatServiceOptions } from "../core/chat-service";
import type { RequestCapture } from "../core/context/chat-context";
import { createWorkerImageScaler } from "../core/images/image-scaler";
import type { EditApprovalRequest, EditDecision } from "../core/session";
import type { ModelBinding, RequestContextStep } from "../core/session/types";
import type { WorkspaceFileSystem } from "../core/tools";
import { type ChatLocks, type ChatModelChoice, createNodeTranscriptStorage, TranscriptStore } from "../core/transcript";
import { ImageBlobStore } from "../core/transcript/image-blobs";
import type { HostCheckpoints } from "./checkpoints/host-checkpoints";
import { loadComposer } from "./composer/composer-loader";
import { createDiagnosticsWatcher } from "./adapters/diagnostics";
import { projectInstructionsStep } from "./adapters/project-instructions";
import type { WorkspacePaths } from "./adapters/workspace-paths";
import type { HostMcp } from "./mcp/host-mcp";
import { keyRedactor } from "./models/key-redaction";
import { modelTitles } from "./models/model-titles";
import { loadProviders } from "./models/providers-loader";
import { isProviderId } from "./providers/catalog";
import { approvalModeSetting, leanModeSetting, mcpOnDemandSetting, protectedFilesSetting, readCompactionSettings, workspaceTrusted } from "./settings";
import type { HostShellCommands } from "./shell/shell-commands";

/** Two request steps, one after the other. */
function chainSteps(first: RequestContextStep, second: RequestContextStep): RequestContextStep {
  return async (messages, signal) => second(await first(messages, signal), signal);
}

export interface ChatServiceSetup {
  storageDir: string;
  /** The one folder's root, so the tools accept absolute paths inside it (undefined with several folders). */
  workspaceRoot: { scheme: string; fsPath: string } | undefined;
  paths: WorkspacePaths;
  /** The system prompt, when the workspace adds to the default one (the folders of a multi-root workspace). */
  systemPrompt?: string;
  fs: WorkspaceFileSystem;
  discovery?: ChatServiceOptions["discovery"];
  commands: HostShellCommands;
  mcp?: HostMcp;
  checkpoints?: HostCheckpoints;
  locks: ChatLocks;
  log: (line: string) => void;
  onRequest?: (capture: RequestCapture) => void;
  resolveModel: (choice: ChatModelChoice | undefined) => Promise<ModelBinding>;
  approver: (request: EditApprovalRequest, signal: AbortSignal | undefined) => Promise<EditDecision>;
  /** The tools' path prefix of each folder (where the skills are read). */
  folderPrefixes: () => string[];
  /** A chat got its title: the history list is read again. */
  titlesChanged: () => void;
}

export function createChatService(setup: ChatServiceSetup): ChatService {
  const { commands, log } = setup;
  const root = setup.workspaceRoot;
  return new ChatService({
    images: new ImageBlobStore(setup.storageDir),
    store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(setup.storageDir)),
    fs: setup.fs,
    ...(setup.discovery ? { discovery: setup.discovery } : {}),
    ...(root?.scheme === "file" ? { workspaceRoot: root.fsPath } : {}),
    ...(setup.systemPrompt !== undefined ? { systemPrompt: setup.systemPrompt } : {}),
    resolveModel: setup.resolveModel,
    approver: setup.approver,
    describeError: (message, model) =>
      loadProviders().describeProviderError(message, isProviderId(model?.provider) ? model.provider : undefined, {
        ...(model?.baseUrl ? { baseUrl: model.baseUrl } : {}),
        ...(model?.id ? { id: model.id } : {}),
      }),
    approvalMode: approvalModeSetting,
    protectedFiles: protectedFilesSetting,
    workspaceTrusted,
    extendContext: chainSteps(
      projectInstructionsStep(log),
      // The skills' list: its code loads with the first request (out/composer.js).
      (messages, signal) => loadComposer().skillsStep(setup.fs, setup.folderPrefixes, log)(messages, signal),
    ),
    problems: createDiagnosticsWatcher((p) => setup.paths.uriOf(p)),
    // Large images read_file returns are scaled in a worker (photon), loaded only then.
    imageScaler: createWorkerImageScaler(path.join(__dirname, "image-scale.js")),
    compaction: () => readCompactionSettings(),
    leanMode: () => leanModeSetting(),
    mcpOnDemand: () => mcpOnDemandSetting(),
    onRequest: (capture) => setup.onRequest?.(capture),
    log,
    commands: {
      runner: () => commands.runner(),
      enabled: () => commands.enabled(),
      rules: commands.rules,
      approver: (request, signal) => commands.approver(request, signal),
      defaultTimeoutSeconds: () => commands.defaultTimeoutSeconds(),
      logRoot: commands.logRoot,
      ...(commands.folders ? { folders: commands.folders } : {}),
    },
    ...(setup.mcp ? { mcp: setup.mcp } : {}),
    ...(setup.checkpoints ? { checkpoints: setup.checkpoints.checkpoints } : {}),
    locks: setup.locks,
    redactor: keyRedactor,
    titles: modelTitles(setup.titlesChanged),
  });
}
