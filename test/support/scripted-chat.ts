// A chat world whose model is scripted, and the 4-turn chat the branch tests start from
// ("prompt N" answered by "answer N").
import type { Message } from "@earendil-works/pi-ai";
import type { ChatSession } from "../../src/core/session";
import { chatWorld, type ChatWorld } from "./chat-world";
import { createScriptedModel, reply, textOf, type ScriptedModel } from "./scripted-model";

export interface ScriptedWorld extends ChatWorld {
  model: ScriptedModel;
}

export function scriptedWorld(options: Omit<Parameters<typeof chatWorld>[0], "resolveModel"> = {}): ScriptedWorld {
  const model = createScriptedModel();
  return { ...chatWorld({ resolveModel: async () => model.binding, ...options }), model };
}

export async function fourTurns(w: ScriptedWorld): Promise<ChatSession> {
  const session = w.service.newChat();
  for (let turn = 1; turn <= 4; turn++) {
    w.model.push(reply.text(`answer ${turn}`));
    await session.prompt(`prompt ${turn}`);
  }
  return session;
}

/** Where the user message `text` is on the session's current path (-1: not on it). */
export function promptIndex(session: ChatSession, text: string): number {
  return session.messages.findIndex((m) => m.role === "user" && textOf(m as Message) === text);
}
