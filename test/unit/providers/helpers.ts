// Shared setup for the provider tests: a ChatService over a temporary workspace whose model
// comes from resolveModelBinding, and a fetch guard that fails any request to a host other
// than the local test server (no real provider is ever contacted).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { ChatService } from "../../../src/core/chat-service";
import type { EditApprovalRequest, ModelBinding } from "../../../src/core/session";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import type { ProviderId, SecretSource } from "../../../src/host/providers";
import type { WireContentPart, WireMessage } from "../../support/openai-server";
import { tempDir } from "../../support/temp";

export const CONFIG = "export const config = {\n  host: \"localhost\",\n  port: 3000,\n};\n";

export interface World {
  workspace: string;
  service: ChatService;
  approvals: EditApprovalRequest[];
  cleanup: () => void;
}

export function world(resolveModel: () => Promise<ModelBinding>): World {
  const ws = tempDir("providers-ws");
  const storage = tempDir("providers-storage");
  mkdirSync(join(ws.path, "src"));
  writeFileSync(join(ws.path, "src/config.ts"), CONFIG);
  const approvals: EditApprovalRequest[] = [];
  const service = new ChatService({
    store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
    fs: createNodeWorkspaceFs(ws.path),
    workspaceRoot: ws.path,
    resolveModel,
    approver: async (request) => {
      approvals.push(request);
      return { decision: "allow" };
    },
    approvalMode: () => "ask",
  });
  return {
    workspace: ws.path,
    service,
    approvals,
    cleanup: () => {
      ws.cleanup();
      storage.cleanup();
    },
  };
}

/** A SecretSource over a plain object, counting reads. */
export function secretsOf(values: Partial<Record<ProviderId, string>>): SecretSource & { reads: ProviderId[] } {
  const reads: ProviderId[] = [];
  return {
    reads,
    async get(provider) {
      reads.push(provider);
      return values[provider];
    },
  };
}

export interface NetworkGuard {
  /** Every URL fetched while the guard was on. */
  urls: string[];
  restore: () => void;
}

/** Replaces globalThis.fetch (which the openai SDK uses) with one that only reaches 127.0.0.1. */
export function guardNetwork(): NetworkGuard {
  const original = globalThis.fetch;
  const urls: string[] = [];
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    urls.push(url);
    const host = new URL(url).hostname;
    if (host !== "127.0.0.1") throw new TypeError(`test network guard: refused a request to ${host}`);
    return original(input, init);
  }) as typeof fetch;
  return { urls, restore: () => void (globalThis.fetch = original) };
}

/** The text of a wire message's content (string or parts). */
export function wireText(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: WireContentPart) => part.text ?? "").join("");
  return "";
}

export function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage {
  const found = [...messages].reverse().find((m): m is AssistantMessage => m.role === "assistant");
  assert.ok(found, "there is an assistant message");
  return found;
}

/** Sets environment variables for one test; returns the restore. */
export function withEnv(values: Record<string, string | undefined>): () => void {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(values)) {
    saved.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
