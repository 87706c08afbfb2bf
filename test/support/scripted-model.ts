// A scripted model for tests: pi-ai's faux provider, with every request's context recorded,
// so a test can assert what the model actually received.
import {
  createModels,
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxThinking,
  fauxToolCall,
  type AssistantMessage,
  type FauxModelDefinition,
  type JsonObject,
  type Message,
  type TranscriptContext,
} from "@earendil-works/pi-ai";
import type { ModelBinding } from "../../src/core/session/types";

export type ScriptStep = (request: Message[]) => AssistantMessage;

export interface ScriptedModel {
  binding: ModelBinding;
  /** The messages of each request, in order (deep copies). */
  requests: Message[][];
  push(...steps: ScriptStep[]): void;
  pending(): number;
}

export function createScriptedModel(options: { tokensPerSecond?: number; model?: FauxModelDefinition } = {}): ScriptedModel {
  const faux = fauxProvider({
    ...(options.tokensPerSecond !== undefined ? { tokensPerSecond: options.tokensPerSecond } : {}),
    ...(options.model ? { models: [options.model] } : {}),
  });
  const models = createModels();
  models.setProvider(faux.provider);
  const requests: Message[][] = [];
  const model = faux.getModel();
  return {
    binding: {
      model,
      streamFn: (m, context, streamOptions) => models.streamSimple(m, context, streamOptions),
      getApiKey: () => "test-key",
    },
    requests,
    push(...steps) {
      faux.appendResponses(
        steps.map((step) => (context: TranscriptContext) => {
          const copy = structuredClone(context.messages) as Message[];
          requests.push(copy);
          return step(copy);
        }),
      );
    },
    pending: () => faux.getPendingResponseCount(),
  };
}

export const reply = {
  text:
    (text: string, thinking?: string): ScriptStep =>
    () =>
      fauxAssistantMessage(thinking ? [fauxThinking(thinking), fauxText(text)] : [fauxText(text)]),
  tool:
    (name: string, args: JsonObject, id?: string): ScriptStep =>
    () =>
      fauxAssistantMessage([fauxToolCall(name, args, id ? { id } : undefined)], { stopReason: "toolUse" }),
};

/** Text of a user message, for assertions. */
export function textOf(message: Message | undefined): string {
  if (!message) return "";
  if (message.role === "system") return typeof message.content === "string" ? message.content : message.content.map((c) => c.text).join("");
  if (message.role === "assistant") return message.content.map((c) => (c.type === "text" ? c.text : c.type === "thinking" ? c.thinking : "")).join("");
  if (typeof message.content === "string") return message.content;
  return message.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}
