// A chat's title from its model after the first answer (src/core/title-suggestion.ts), in a real
// ChatService over the real store with pi-ai's faux provider: the title request is sent once, its
// answer (cleaned, redacted) becomes the title as a line appended to the chat, and a failure, a
// rename by the user or the setting turned off keeps the title from the first prompt.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, type Message } from "@earendil-works/pi-ai";
import { cleanTitle, TITLE_SUGGESTION_MAX_CHARS, titleFromModelWanted } from "../../../src/core/title-suggestion";
import { SecretRedactor } from "../../../src/core/redaction";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel, reply, textOf, type ScriptedModel, type ScriptStep } from "../../support/scripted-model";

interface World extends ChatWorld {
  model: ScriptedModel;
  logs: string[];
  saved: string[];
}

function world(options: { wanted?: boolean; redactor?: SecretRedactor } = {}): World {
  const model = createScriptedModel();
  const logs: string[] = [];
  const saved: string[] = [];
  const w = chatWorld({
    resolveModel: async () => model.binding,
    titles: { wanted: () => options.wanted ?? true, saved: (_chatId, title) => saved.push(title) },
    log: (line) => logs.push(line),
    ...(options.redactor ? { redactor: options.redactor } : {}),
  });
  return { ...w, model, logs, saved };
}

const isTitleRequest = (request: readonly Message[]): boolean => request.some((m) => m.role === "user" && textOf(m).startsWith("The user wrote:"));

describe("titles from the model after the first answer", () => {
  let w: World;
  afterEach(() => w?.cleanup());

  const titleOf = async (chatId: string): Promise<string | undefined> => (await w.service.listChats()).find((c) => c.id === chatId)?.title;

  it("asks once, after the first answer; the cleaned answer is the title, saved as a line appended to the chat", async () => {
    w = world();
    const session = w.service.newChat();
    w.model.push(reply.text("The default port is 3000."), reply.text('**Title:** "Default port in config.ts".\nSecond line ignored'));
    await session.prompt("Where is the default port set, and what is it?");
    await w.service.titlesSettled();
    assert.equal(w.saved.length, 1);
    assert.equal(await titleOf(session.id), "Default port in config.ts");
    const titleRequests = w.model.requests.filter(isTitleRequest);
    assert.equal(titleRequests.length, 1);
    const asked = textOf(titleRequests[0]!.find((m) => m.role === "user"));
    assert.match(asked, /Where is the default port set/);
    assert.match(asked, /The default port is 3000\./);

    // Appended, not rewritten: the chat file ends with the title line.
    const file = readFileSync(join(w.storageDir, "chats", `${session.id}.jsonl`), "utf8")
      .trimEnd()
      .split("\n");
    assert.deepEqual(JSON.parse(file.at(-1)!), { type: "meta", title: "Default port in config.ts", at: JSON.parse(file.at(-1)!).at, source: "model" });

    // Later answers ask nothing more; a reopened chat keeps the title.
    w.model.push(reply.text("Yes."));
    await session.prompt("Sure?");
    await w.service.titlesSettled();
    assert.equal(w.model.requests.filter(isTitleRequest).length, 1);
    assert.equal(w.model.pending(), 0);
    const reopened = await w.reopen().open(session.id);
    assert.ok(reopened.ok);
    assert.equal((await w.reopen().listChats()).find((c) => c.id === session.id)?.title, "Default port in config.ts");
  });

  it("a failed title request changes nothing: the chat goes on, the first prompt's title stays, the Output log says why", async () => {
    w = world();
    const session = w.service.newChat();
    const failing: ScriptStep = () => fauxAssistantMessage([fauxText("")], { stopReason: "error", errorMessage: "overloaded" });
    w.model.push(reply.text("An answer."), failing);
    await session.prompt("Explain the loader");
    await w.service.titlesSettled();
    assert.ok(
      w.logs.some((l) => /no title from the model \(overloaded\)/.test(l)),
      w.logs.join("\n"),
    );
    assert.equal(await titleOf(session.id), "Explain the loader");
    assert.deepEqual(w.saved, []);
    w.model.push(reply.text("More."));
    await session.prompt("Go on");
    assert.equal(textOf(session.messages.at(-1) as Message), "More.");
  });

  it("a rename by the user before the title arrives wins; with the setting off nothing is asked", async () => {
    w = world();
    const session = w.service.newChat();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    w.model.push(reply.text("An answer."), reply.text("Model title"));
    // The title request is answered only after the rename.
    const original = w.model.binding.streamFn;
    w.model.binding.streamFn = async (m, context, options) => {
      if (isTitleRequest(context.messages as Message[])) await gate;
      return original(m, context, options);
    };
    await session.prompt("First prompt");
    await w.service.renameChat(session.id, "My own name");
    release();
    await w.service.titlesSettled();
    assert.equal(w.model.pending(), 0);
    assert.equal(await titleOf(session.id), "My own name");
    assert.deepEqual(w.saved, []);
    await w.cleanup();

    w = world({ wanted: false });
    const off = w.service.newChat();
    w.model.push(reply.text("An answer."));
    await off.prompt("First prompt");
    await w.service.titlesSettled();
    assert.equal(w.model.requests.filter(isTitleRequest).length, 0);
    assert.equal(await titleOf(off.id), "First prompt");
  });

  it("a key in the model's title is redacted before it is saved", async () => {
    const redactor = new SecretRedactor();
    redactor.add("sk-test-1234567890abcdef");
    w = world({ redactor });
    const session = w.service.newChat();
    w.model.push(reply.text("Done."), reply.text("Use sk-test-1234567890abcdef here"));
    await session.prompt("Set the key");
    await w.service.titlesSettled();
    assert.equal(w.saved.length, 1);
    const title = (await titleOf(session.id)) ?? "";
    assert.ok(!title.includes("sk-test-1234567890abcdef"), title);
    assert.match(title, /^Use .+ here$/);
  });

  it("cleanTitle: one line of plain words, quotes and markup gone, cut at a word to a sane length; the setting's default leaves local servers alone", () => {
    assert.equal(cleanTitle("# Title: “Fix the flaky test”."), "Fix the flaky test");
    assert.equal(cleanTitle("\n\n  Port  config \t lookup!\nmore"), "Port config lookup");
    assert.equal(cleanTitle('  \n "" '), undefined);
    const long = cleanTitle("word ".repeat(40))!;
    assert.ok(Array.from(long).length <= TITLE_SUGGESTION_MAX_CHARS + 1 && long.endsWith("…") && !long.includes("  "), long);
    assert.equal(titleFromModelWanted("cloud", "anthropic"), true);
    assert.equal(titleFromModelWanted("cloud", "openai-compatible"), false);
    assert.equal(titleFromModelWanted("cloud", "vscode-lm"), false, "VS Code's models: a request may count against the plan");
    assert.equal(titleFromModelWanted("always", "vscode-lm"), true);
    assert.equal(titleFromModelWanted("always", "openai-compatible"), true);
    assert.equal(titleFromModelWanted("never", "openai"), false);
  });
});
