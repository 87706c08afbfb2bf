// Shared setup for the provider tests: a ChatService over a temporary workspace whose model
// comes from resolveModelBinding, and a fetch guard that fails any request to a host other
// than the local test server (no real provider is ever contacted).
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { ModelBinding } from "../../../src/core/session/types";
import type { ProviderId, SecretSource } from "../../../src/host/providers/provider-bundle";
import type { WireContentPart, WireMessage } from "../../support/openai-server";
import { chatWorld, CONFIG, type ChatWorld } from "../../support/chat-world";

export { CONFIG };
export type World = ChatWorld;

export function world(resolveModel: () => Promise<ModelBinding>, options: Pick<Parameters<typeof chatWorld>[0], "describeError"> = {}): World {
  return chatWorld({ resolveModel, ...options });
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
