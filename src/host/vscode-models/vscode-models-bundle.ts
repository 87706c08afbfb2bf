// VS Code's language models as a pi model: a stream function that adapts LanguageModelChat.sendRequest
// to pi-ai's event stream, so the one agent loop (cards, approvals, Stop, the meter, compaction, the
// transcript) runs as with any pi-ai provider. Bundled on its own (out/vscode-models.js) and loaded
// on the first request to such a model (src/host/lazy-bundle.ts), never at activation.
import type { StreamFn } from "@earendil-works/pi-agent-core";
import type {
  AssistantMessage,
  ImageContent,
  JsonObject,
  Message,
  Model,
  SimpleStreamOptions,
  TextContent,
  ToolCall,
  TranscriptContext,
  Usage,
} from "@earendil-works/pi-ai";
import { createAssistantMessageEventStream, type AssistantMessageEventStream } from "@earendil-works/pi-ai/utils/event-stream";
import { getCurrentSystemPrompt, getCurrentTools } from "@earendil-works/pi-ai/utils/transcript";
import * as vscode from "vscode";
import { RunSetupError } from "../../core/session/run-errors";
import type { ModelBinding } from "../../core/session/types";
import { SELECT_MODEL_COMMAND, VSCODE_LM } from "../providers/catalog";
import { assumedMaxOutput, dataPartClass, describeModel, lmAvailable, parseModelKey, providerApiAvailable, type LanguageModelChatLatest } from "./lm-api";

/** The api name our models carry: no pi-ai adapter has it, only this stream function answers it. */
export const VSCODE_LM_API = "vscode-lm";

/** What VS Code shows in its consent prompt as the reason Pi Chat asks. */
const JUSTIFICATION = "Pi Chat sends your prompt, the chat so far and its tools (read, search, edit, run) to this model, as to any model you choose.";

/** The errorMessage prefix of a LanguageModelError (src/host/providers/errors.ts reads the code back). */
export const LM_ERROR_PREFIX = "VS Code language model error";

/**
 * The binding for a chat whose model is `key` ("vendor/id"; "" = VS Code's first model). Throws a
 * RunSetupError that says the way out when VS Code has no such model.
 */
export async function resolveVscodeModelBinding(key: string, log: (line: string) => void): Promise<ModelBinding> {
  if (!lmAvailable()) {
    throw new RunSetupError(
      "This VS Code offers no language models to extensions.",
      `Update VS Code, or choose another model with “${SELECT_MODEL_COMMAND}”.`,
      "selectChatModel",
      ["setApiKey", "useLocalModel"],
    );
  }
  const wanted = parseModelKey(key);
  const models = (await vscode.lm.selectChatModels(wanted ? { vendor: wanted.vendor, id: wanted.id } : {})) as LanguageModelChatLatest[];
  const chat = models[0];
  if (!chat) {
    if (wanted && (await vscode.lm.selectChatModels()).length > 0) {
      throw new RunSetupError(
        `VS Code has no model “${key}” now: the extension that provided it may be disabled, signed out or out of it.`,
        `Choose another of VS Code's models with “${SELECT_MODEL_COMMAND}”.`,
        "selectChatModel",
      );
    }
    throw new RunSetupError(
      "VS Code has no language models to offer.",
      providerApiAvailable()
        ? "Install or sign in to an extension that provides them (GitHub Copilot, or another model provider), or choose another provider."
        : "Sign in to GitHub Copilot (or another model extension), or choose another provider.",
      "selectChatModel",
      ["setApiKey", "useLocalModel"],
    );
  }
  const info = describeModel(chat);
  if (info.toolCalling === false) {
    throw new RunSetupError(
      `${chat.name} (${info.key}) takes no tools, and Pi Chat works through its tools (read, search, edit, run).`,
      `Choose a model that can call tools with “${SELECT_MODEL_COMMAND}”.`,
      "selectChatModel",
    );
  }
  log(`run: VS Code model ${info.key} (${chat.name}, family ${chat.family}, ${chat.maxInputTokens} input tokens)`);
  const model: Model<typeof VSCODE_LM_API> = {
    id: info.key,
    name: chat.name,
    api: VSCODE_LM_API,
    provider: VSCODE_LM,
    baseUrl: "",
    reasoning: false,
    input: info.imageInput ? ["text", "image"] : ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: chat.maxInputTokens,
    maxTokens: assumedMaxOutput(chat.maxInputTokens),
  };
  return {
    model,
    streamFn: vscodeStreamFn(chat),
    // No key: VS Code asks the user whether Pi Chat may use the model.
    getApiKey: () => undefined,
  };
}

/** A pi stream function over one VS Code model. */
export function vscodeStreamFn(chat: LanguageModelChatLatest): StreamFn {
  return (model, context, options) => {
    const stream = createAssistantMessageEventStream();
    void streamResponse(chat, model, context, options ?? {}, stream);
    return stream;
  };
}

function zeroUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

/** One request: our context to VS Code's messages and tools, its parts back as pi events. */
async function streamResponse(
  chat: LanguageModelChatLatest,
  model: Model<string>,
  context: TranscriptContext,
  options: SimpleStreamOptions,
  stream: AssistantMessageEventStream,
): Promise<void> {
  const output: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    responseModel: modelKeyOf(chat),
    usage: zeroUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = () => cancel.cancel();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) cancel.cancel();
  try {
    stream.push({ type: "start", partial: output });
    const messages = toChatMessages(context.messages, model.input.includes("image"));
    const tools = getCurrentTools(context.messages).map(
      (tool): vscode.LanguageModelChatTool => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters }),
    );
    const response = await chat.sendRequest(
      messages,
      { justification: JUSTIFICATION, ...(tools.length > 0 ? { tools, toolMode: vscode.LanguageModelChatToolMode.Auto } : {}) },
      cancel.token,
    );
    let text: TextContent | undefined;
    const endText = () => {
      if (!text) return;
      stream.push({ type: "text_end", contentIndex: output.content.indexOf(text), content: text.text, partial: output });
      text = undefined;
    };
    for await (const part of response.stream) {
      if (cancel.token.isCancellationRequested) break;
      if (part instanceof vscode.LanguageModelTextPart) {
        if (!text) {
          text = { type: "text", text: "" };
          output.content.push(text);
          stream.push({ type: "text_start", contentIndex: output.content.length - 1, partial: output });
        }
        text.text += part.value;
        stream.push({ type: "text_delta", contentIndex: output.content.indexOf(text), delta: part.value, partial: output });
      } else if (part instanceof vscode.LanguageModelToolCallPart) {
        endText();
        const call: ToolCall = { type: "toolCall", id: part.callId, name: part.name, arguments: asJsonObject(part.input) };
        output.content.push(call);
        const index = output.content.length - 1;
        stream.push({ type: "toolcall_start", contentIndex: index, partial: output });
        stream.push({ type: "toolcall_delta", contentIndex: index, delta: JSON.stringify(call.arguments), partial: output });
        stream.push({ type: "toolcall_end", contentIndex: index, toolCall: call, partial: output });
      }
      // Other parts (thinking, data) are not shown: pi's model says nothing of them.
    }
    endText();
    if (cancel.token.isCancellationRequested) throw new StoppedError();
    output.usage = await usageOf(chat, messages, output, cancel.token);
    output.stopReason = output.content.some((c) => c.type === "toolCall") ? "toolUse" : "stop";
    stream.push({ type: "done", reason: output.stopReason === "toolUse" ? "toolUse" : "stop", message: output });
    stream.end(output);
  } catch (error) {
    const aborted = cancel.token.isCancellationRequested || error instanceof StoppedError;
    output.stopReason = aborted ? "aborted" : "error";
    output.errorMessage = aborted ? "Request was aborted" : errorText(error);
    stream.push({ type: "error", reason: aborted ? "aborted" : "error", error: output });
    stream.end(output);
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    cancel.dispose();
  }
}

class StoppedError extends Error {}

function modelKeyOf(chat: vscode.LanguageModelChat): string {
  return `${chat.vendor}/${chat.id}`;
}

/** What the meter shows: the model's own count (countTokens) of what was sent and what came back. */
async function usageOf(
  chat: vscode.LanguageModelChat,
  sent: vscode.LanguageModelChatMessage[],
  output: AssistantMessage,
  token: vscode.CancellationToken,
): Promise<Usage> {
  const counts = await Promise.all(sent.map((m) => chat.countTokens(m, token)));
  const answer = output.content.map((c) => (c.type === "text" ? c.text : c.type === "toolCall" ? `${c.name}${JSON.stringify(c.arguments)}` : "")).join("");
  const input = counts.reduce((a, b) => a + b, 0);
  const produced = answer ? await chat.countTokens(answer, token) : 0;
  return { ...zeroUsage(), input, output: produced, totalTokens: input + produced };
}

/** A LanguageModelError in words that src/host/providers/errors.ts turns into the way out. */
function errorText(error: unknown): string {
  if (error instanceof vscode.LanguageModelError) return `${LM_ERROR_PREFIX} (${error.code || "Unknown"}): ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function asJsonObject(value: object): JsonObject {
  // VS Code hands the model's arguments over as parsed JSON; a round trip drops anything that is not.
  const copy: unknown = JSON.parse(JSON.stringify(value ?? {}));
  return typeof copy === "object" && copy !== null && !Array.isArray(copy) ? (copy as JsonObject) : {};
}

type UserPart = vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart;

/**
 * Our transcript as VS Code's messages. VS Code has no system role: the system prompt leads as a
 * user message. Tool results are user messages of tool result parts; consecutive ones are one message.
 */
export function toChatMessages(messages: readonly Message[], imageInput: boolean): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  const system = getCurrentSystemPrompt(messages);
  if (system) out.push(vscode.LanguageModelChatMessage.User(system));
  let toolResults: UserPart[] | undefined;
  const flushResults = () => {
    if (toolResults) out.push(vscode.LanguageModelChatMessage.User(toolResults));
    toolResults = undefined;
  };
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.role === "toolResult") {
      toolResults ??= [];
      toolResults.push(new vscode.LanguageModelToolResultPart(message.toolCallId, resultParts(message.content, imageInput)));
      continue;
    }
    flushResults();
    if (message.role === "user") {
      const parts = typeof message.content === "string" ? [new vscode.LanguageModelTextPart(message.content)] : userParts(message.content, imageInput);
      if (parts.length > 0) out.push(vscode.LanguageModelChatMessage.User(parts as UserPart[]));
    } else {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      for (const c of message.content) {
        if (c.type === "text" && c.text) parts.push(new vscode.LanguageModelTextPart(c.text));
        else if (c.type === "toolCall") parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, c.arguments));
      }
      if (parts.length > 0) out.push(vscode.LanguageModelChatMessage.Assistant(parts));
    }
  }
  flushResults();
  return out;
}

/** A user message's text and images; an image only where the model takes images and VS Code has image parts. */
function userParts(content: readonly (TextContent | ImageContent)[], imageInput: boolean): unknown[] {
  return content.flatMap((c): unknown[] => (c.type === "text" ? [new vscode.LanguageModelTextPart(c.text)] : imagePart(c, imageInput)));
}

function resultParts(content: readonly (TextContent | ImageContent)[], imageInput: boolean): unknown[] {
  const parts = userParts(content, imageInput);
  return parts.length > 0 ? parts : [new vscode.LanguageModelTextPart("(no output)")];
}

function imagePart(image: ImageContent, imageInput: boolean): unknown[] {
  const dataPart = dataPartClass();
  if (imageInput && dataPart) return [dataPart.image(Buffer.from(image.data, "base64"), image.mimeType)];
  // Pi Chat says so before sending an image to a model without image input; this is the fallback.
  return [new vscode.LanguageModelTextPart(`(an image, ${image.mimeType}, left out: this model takes no images)`)];
}
