// A chat's own model: saved as a line of its transcript, restored with it, handed to the model
// resolver on every run; a new chat starts from the settings (no choice of its own).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatModelChoice } from "../../../src/core/transcript";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";

describe("model per chat (core)", () => {
  let w: ChatWorld;
  afterEach(() => w?.cleanup());

  it("two chats on different models keep them across a reload; each run resolves the chat's own model", async () => {
    const model = createScriptedModel();
    const asked: (string | undefined)[] = [];
    const resolveModel = async (choice?: ChatModelChoice) => {
      asked.push(choice ? `${choice.provider}/${choice.modelId}${choice.thinkingLevel ? `@${choice.thinkingLevel}` : ""}` : undefined);
      return model.binding;
    };
    w = chatWorld({ resolveModel });
    const a = w.service.newChat();
    const b = w.service.newChat();
    const fresh = w.service.newChat();
    // Chosen before the first message: kept until the file exists, then written to it.
    await a.setModel({ provider: "openai", modelId: "model-a" });
    await b.setModel({ provider: "anthropic", modelId: "model-b", thinkingLevel: "high" });
    model.push(reply.text("from a"), reply.text("from b"), reply.text("from fresh"));
    await a.prompt("hi a");
    await b.prompt("hi b");
    await fresh.prompt("hi fresh");
    assert.deepEqual(asked, ["openai/model-a", "anthropic/model-b@high", undefined]);
    // Changing the model mid-chat: the next request uses it.
    await a.setModel({ provider: "openai", modelId: "model-a2" });
    model.push(reply.text("from a2"));
    await a.prompt("again");
    assert.equal(asked.at(-1), "openai/model-a2");
    const lines = readFileSync(join(w.storageDir, "chats", `${a.id}.jsonl`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.filter((l) => l.type === "model").map((l) => l.modelId),
      ["model-a", "model-a2"],
      "each choice is one appended line",
    );

    const again = w.reopen(resolveModel);
    const [ra, rb, rf] = await Promise.all([again.open(a.id), again.open(b.id), again.open(fresh.id)]);
    assert.ok(ra.ok && rb.ok && rf.ok);
    assert.deepEqual(ra.session.model, { provider: "openai", modelId: "model-a2" });
    assert.deepEqual(rb.session.model, { provider: "anthropic", modelId: "model-b", thinkingLevel: "high" });
    assert.equal(rf.session.model, undefined, "a chat without a choice follows the settings");
    model.push(reply.text("b after reload"));
    await rb.session.prompt("still b?");
    assert.equal(asked.at(-1), "anthropic/model-b@high");
    const listed = await again.listChats();
    assert.equal(listed.find((c) => c.id === b.id)?.model, "anthropic/model-b");
  });

  it("a provider error names the model that failed", async () => {
    const model = createScriptedModel();
    w = chatWorld({ resolveModel: async () => model.binding });
    const session = w.service.newChat();
    model.push(() => fauxAssistantMessage([], { stopReason: "error", errorMessage: "Rate limited" }));
    await session.prompt("hi");
    const notice = session.messages.at(-1)!;
    assert.ok(notice.role === "localNotice");
    assert.equal(notice.text, `Rate limited (model ${model.binding.model.provider}/${model.binding.model.id})`);
  });
});
