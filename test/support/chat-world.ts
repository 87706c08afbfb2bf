// A ChatService over a temporary workspace (src/config.ts says port 3000) and a temporary
// storage folder, for tests that drive whole conversations. `cleanup` first disposes every
// service it made, so no index write is still under way when the folders are removed.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService, type ChatServiceOptions } from "../../src/core/chat-service";
import { Checkpoints, createNodeCheckpointIo } from "../../src/core/checkpoints";
import type { CompactionSettings } from "../../src/core/context/compaction";
import type { EditApprovalRequest, EditDecision } from "../../src/core/session";
import type { ModelBinding, Redactor, RequestContextStep } from "../../src/core/session/types";
import { createNodeWorkspaceFs } from "../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore, type TranscriptStorage } from "../../src/core/transcript";
import { tempDir } from "./temp";

export const CONFIG = 'export const config = {\n  host: "localhost",\n  port: 3000,\n};\n';

export interface ChatWorld {
  workspace: string;
  storageDir: string;
  /** The first service; `reopen()` makes another over the same folders ("VS Code restarted"). */
  service: ChatService;
  /** Every approval request any service of this world made. */
  approvals: EditApprovalRequest[];
  reopen(resolveModel?: () => Promise<ModelBinding>): ChatService;
  /** With `checkpoints: true`: the window's checkpoints. */
  checkpoints?: Checkpoints;
  cleanup(): Promise<void>;
}

export function chatWorld(options: {
  resolveModel: () => Promise<ModelBinding>;
  decide?: (request: EditApprovalRequest) => EditDecision;
  approvalMode?: "ask" | "auto";
  redactor?: Redactor;
  /** Built once the workspace exists (it may read from it). */
  extendContext?: (workspace: string) => RequestContextStep;
  compaction?: () => Partial<CompactionSettings>;
  titles?: ChatServiceOptions["titles"];
  mcp?: ChatServiceOptions["mcp"];
  mcpOnDemand?: ChatServiceOptions["mcpOnDemand"];
  leanMode?: ChatServiceOptions["leanMode"];
  commands?: ChatServiceOptions["commands"];

  describeError?: ChatServiceOptions["describeError"];
  log?: (line: string) => void;
  /** Wraps the chats' storage of every service (to watch or pause what the store does). */
  storage?: (inner: TranscriptStorage) => TranscriptStorage;
  /** Checkpoints over the workspace (kept in the storage folder), shared by every service. */
  checkpoints?: boolean;
}): ChatWorld {
  const ws = tempDir("ws");
  const storage = tempDir("storage");
  mkdirSync(join(ws.path, "src"));
  writeFileSync(join(ws.path, "src/config.ts"), CONFIG);
  const approvals: EditApprovalRequest[] = [];
  const services: ChatService[] = [];
  const checkpoints = options.checkpoints
    ? new Checkpoints({ storageRoot: storage.path, io: createNodeCheckpointIo([{ name: "ws", root: ws.path }]) })
    : undefined;
  const open = (resolveModel: () => Promise<ModelBinding>) => {
    const service = new ChatService({
      store: new TranscriptStore<AgentMessage>((options.storage ?? ((s) => s))(createNodeTranscriptStorage(storage.path)), { indexFlushDelayMs: 0 }),
      fs: createNodeWorkspaceFs(ws.path),
      workspaceRoot: ws.path,
      resolveModel,
      approver: async (request) => {
        approvals.push(request);
        return options.decide?.(request) ?? { decision: "allow" };
      },
      approvalMode: () => options.approvalMode ?? "ask",
      ...(options.redactor ? { redactor: options.redactor } : {}),
      ...(options.describeError ? { describeError: options.describeError } : {}),
      ...(options.extendContext ? { extendContext: options.extendContext(ws.path) } : {}),
      ...(options.compaction ? { compaction: options.compaction } : {}),
      ...(options.titles ? { titles: options.titles } : {}),
      ...(options.mcp ? { mcp: options.mcp } : {}),
      ...(options.mcpOnDemand ? { mcpOnDemand: options.mcpOnDemand } : {}),
      ...(options.leanMode ? { leanMode: options.leanMode } : {}),
      ...(options.commands ? { commands: options.commands } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(checkpoints ? { checkpoints } : {}),
    });
    services.push(service);
    return service;
  };
  return {
    workspace: ws.path,
    storageDir: storage.path,
    service: open(options.resolveModel),
    approvals,
    reopen: (resolveModel = options.resolveModel) => open(resolveModel),
    ...(checkpoints ? { checkpoints } : {}),
    async cleanup() {
      await Promise.all(services.map((s) => s.dispose().catch(() => undefined)));
      ws.cleanup();
      storage.cleanup();
    },
  };
}
