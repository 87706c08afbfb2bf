// A model's streamed words reach the view while its answer is still open, whatever keys the
// redactor knows: only a tail that could be the start of a key waits for the next delta. Here a
// model says its first words and then holds the answer open until the test lets it go (as a VS
// Code model waiting on its provider, or any model thinking before a tool call): the words must be
// on screen before it is let go.
import assert from "node:assert/strict";
import type { StreamFn } from "@earendil-works/pi-agent-core";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { createAssistantMessageEventStream } from "@earendil-works/pi-ai/utils/event-stream";
import { SecretRedactor } from "../../../src/core/redaction";
import { chatItems } from "../../../src/shared/reducer";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel } from "../../support/scripted-model";
import { waitFor } from "../../support/wait-for";

/** A key of a user's, as long as real ones are (an Anthropic key is 108 characters). */
const STORED_KEY = "sk-ant-api03-Zq8vWm2Lr5Tx7Yp1Kd4Hs6Jf9Gb3Nc0Ve2Xa8Uw5Qt1Ry7Io4Pl6Mk9Bh3Dn0Cg2Ej5Fs8";

/** A stream that says `first`, then waits for `release()` before it says `rest` and ends. */
function heldOpenModel(first: string, rest: string) {
  const base = createScriptedModel().binding;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const streamFn: StreamFn = (model) => {
    const stream = createAssistantMessageEventStream();
    const output: AssistantMessage = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: Date.now(),
    };
    void (async () => {
      const text = { type: "text" as const, text: first };
      output.content.push(text);
      stream.push({ type: "start", partial: output });
      stream.push({ type: "text_start", contentIndex: 0, partial: output });
      stream.push({ type: "text_delta", contentIndex: 0, delta: first, partial: output });
      await released;
      text.text += rest;
      stream.push({ type: "text_delta", contentIndex: 0, delta: rest, partial: output });
      stream.push({ type: "text_end", contentIndex: 0, content: text.text, partial: output });
      stream.push({ type: "done", reason: "stop", message: output });
      stream.end(output);
    })();
    return stream;
  };
  // The key in use joins the redactor's keys too; this one starts with no letter the words end with.
  return { binding: { ...base, streamFn, getApiKey: () => "0123456789-key-in-use" }, release };
}

describe("streamed words while the answer is open", () => {
  let w: ChatWorld | undefined;
  afterEach(async () => {
    await w?.cleanup();
    w = undefined;
  });

  for (const words of ["Thinking about it", "Your sk-ant key is fine"]) {
    it(`with a long key known, "${words}" is on screen before the model goes on`, async () => {
      const redactor = new SecretRedactor();
      redactor.add(STORED_KEY);
      const model = heldOpenModel(words, " and done.");
      w = chatWorld({ resolveModel: async () => model.binding, redactor });
      const session = w.service.newChat();
      const prompt = session.prompt("Take your time.");
      const shownText = () => JSON.stringify(chatItems(session.viewState).filter((i) => i.kind === "assistant"));
      try {
        await waitFor("the first words on screen while the answer is open", () => shownText().includes(words), 5_000);
      } finally {
        model.release();
        await prompt;
      }
      assert.match(shownText(), new RegExp(`${words} and done\\.`));
    });
  }

  it("a tail that could start the key waits for the next delta, and the key never shows", async () => {
    const redactor = new SecretRedactor();
    redactor.add(STORED_KEY);
    const model = heldOpenModel(`Your key: ${STORED_KEY.slice(0, 20)}`, `${STORED_KEY.slice(20)} is set.`);
    w = chatWorld({ resolveModel: async () => model.binding, redactor });
    const session = w.service.newChat();
    const deltas: string[] = [];
    session.onEvent((e) => {
      if (e.type === "message/delta") deltas.push(e.text);
    });
    const prompt = session.prompt("What is my key?");
    try {
      await waitFor("the words before the key", () => deltas.join("").includes("Your key: "), 5_000);
      assert.ok(!deltas.join("").includes(STORED_KEY.slice(0, 8)), "the start of the key is held");
    } finally {
      model.release();
      await prompt;
    }
    assert.ok(!deltas.join("").includes(STORED_KEY.slice(0, 8)), deltas.join(""));
    assert.match(deltas.join(""), /Your key: \[redacted\] is set\./);
  });
});
