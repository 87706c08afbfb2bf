// The scenario every build must pass (design/conversation-layers.md), against a scripted model,
// real files in a temporary workspace and the real transcript store on disk.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message, ToolResultMessage } from "@earendil-works/pi-ai";
import type { EditDecision } from "../../../src/core/session";
import { chatItems } from "../../../src/shared/reducer";
import { createScriptedModel, reply, textOf, type ScriptedModel } from "../../support/scripted-model";
import { chatWorld, CONFIG, type ChatWorld } from "../../support/chat-world";

interface World extends ChatWorld {
  model: ScriptedModel;
}

function world(decision: EditDecision): World {
  const model = createScriptedModel();
  return { ...chatWorld({ resolveModel: async () => model.binding, decide: () => decision }), model };
}

/** Turn 1: the model reads the file and answers 3000 — only if the tool result really said so. */
function scriptTurnOne(model: ScriptedModel): void {
  model.push(reply.tool("read_file", { path: "src/config.ts" }, "call_read_1"), (request) => {
    const result = request[request.length - 1];
    assert.equal(result?.role, "toolResult");
    const port = /port: (\d+)/.exec(textOf(result))?.[1];
    return reply.text(`The default port is ${port}.`)([]);
  });
}

function scriptEdit(model: ScriptedModel, from: string, to: string, id: string, after: string): void {
  model.push(reply.tool("edit_file", { path: "src/config.ts", oldText: `port: ${from},`, newText: `port: ${to},` }, id), reply.text(after));
}

function roles(messages: readonly Message[]): string[] {
  return messages.map((m) => m.role);
}

function findToolCall(messages: readonly Message[], name: string): { id: string } | undefined {
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.content) if (c.type === "toolCall" && c.name === name) return { id: c.id };
  }
  return undefined;
}

describe("the 8080 scenario (core, scripted model)", () => {
  let w: World;
  afterEach(() => w?.cleanup());

  it("reads the port, then edits it to 8080 with the whole history in the request", async () => {
    w = world({ decision: "allow" });
    const session = w.service.newChat();
    scriptTurnOne(w.model);
    await session.prompt("Read src/config.ts and tell me the default port.");
    const answer = session.messages[session.messages.length - 1];
    assert.equal(answer?.role, "assistant");
    assert.match(textOf(answer as Message), /3000/);

    scriptEdit(w.model, "3000", "8080", "call_edit_1", "Changed the port to 8080.");
    await session.prompt("Change it to 8080.");

    // The request that produced the edit_file call: it must carry all of turn one.
    const editRequest = w.model.requests[2]!;
    assert.deepEqual(roles(editRequest), ["system", "user", "assistant", "toolResult", "assistant", "user"]);
    assert.match(textOf(editRequest[1]), /Read src\/config\.ts/);
    const readCall = findToolCall(editRequest, "read_file");
    assert.ok(readCall, "the earlier read_file call is in the request");
    const readResult = editRequest.find((m): m is ToolResultMessage => m.role === "toolResult");
    assert.equal(readResult?.toolCallId, readCall.id, "the tool result is matched to its call by id");
    assert.match(textOf(readResult), /port: 3000/);
    assert.match(textOf(editRequest[4]), /3000/);
    assert.match(textOf(editRequest[5]), /Change it to 8080/);

    assert.equal(w.approvals.length, 1, "the gate asked once");
    assert.equal(w.approvals[0]!.path, "src/config.ts");
    assert.match(w.approvals[0]!.diff, /- {2}port: 3000,\n\+ {2}port: 8080,/);
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG.replace("3000", "8080"));

    // The allowed decision is in the transcript as an app message, after the tool result.
    const notice = session.messages.find((m) => m.role === "approvalNotice");
    assert.ok(notice && notice.role === "approvalNotice");
    assert.equal(notice.decision, "allowed");
    assert.equal(notice.toolCallId, "call_edit_1");
    assert.equal(w.model.pending(), 0);
  });

  it("a denial leaves the file untouched and reaches the next request as a fact", async () => {
    w = world({ decision: "deny", reason: "keep 3000 for now" });
    const session = w.service.newChat();
    scriptTurnOne(w.model);
    await session.prompt("Read src/config.ts and tell me the default port.");
    scriptEdit(w.model, "3000", "8080", "call_edit_1", "Understood, I left it.");
    await session.prompt("Change it to 8080.");

    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG, "nothing was written");
    // The request after the blocked call: the error result and the denial fact, both.
    const afterDenial = w.model.requests[3]!;
    const blocked = afterDenial.find((m): m is ToolResultMessage => m.role === "toolResult" && m.toolCallId === "call_edit_1");
    assert.ok(blocked?.isError, "the blocked call has an error result");
    const last = afterDenial[afterDenial.length - 1]!;
    assert.equal(last.role, "user");
    assert.match(textOf(last), /denied the edit_file call call_edit_1 on src\/config\.ts/);
    assert.match(textOf(last), /keep 3000 for now/);
    const notice = session.messages.find((m) => m.role === "approvalNotice");
    assert.ok(notice && notice.role === "approvalNotice" && notice.decision === "denied");
  });

  it("is saved, restored from disk into a new service, and a third prompt works with the whole history", async () => {
    w = world({ decision: "allow" });
    const first = w.service.newChat();
    scriptTurnOne(w.model);
    await first.prompt("Read src/config.ts and tell me the default port.");
    scriptEdit(w.model, "3000", "8080", "call_edit_1", "Changed the port to 8080.");
    await first.prompt("Change it to 8080.");
    // JSON is what is saved: keys whose value is undefined are not part of it.
    const saved = JSON.parse(JSON.stringify(first.messages)) as AgentMessage[];
    await w.service.dispose();

    // "VS Code is closed and reopened": new store, new service, new session objects.
    const model = createScriptedModel();
    const reopened = w.reopen(async () => model.binding);
    const chats = await reopened.listChats();
    assert.equal(chats.length, 1);
    const opened = await reopened.open(chats[0]!.id);
    assert.ok(opened.ok);
    const restored = opened.session;
    assert.deepEqual(restored.messages, saved, "exactly the saved AgentMessage[] (ids, usage, stop reasons)");
    assert.deepEqual(chatItems(restored.viewState), chatItems(first.viewState), "rendered the same");

    scriptEdit(model, "8080", "9090", "call_edit_2", "Now it is 9090.");
    await restored.prompt("and now 9090");
    const request = model.requests[0]!;
    assert.deepEqual(roles(request), [
      "system",
      "user",
      "assistant",
      "toolResult",
      "assistant", // turn 1
      "user",
      "assistant",
      "toolResult",
      "user",
      "assistant", //    turn 2 (the user message after the result is the approval fact)
      "user", //                                                   turn 3
    ]);
    assert.match(textOf(request[request.length - 1]), /and now 9090/);
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG.replace("3000", "9090"));
  });
});

describe("approval modes", () => {
  let w: World;
  afterEach(() => w?.cleanup());

  it("'allow edits for this chat' asks once, then applies later edits of the chat without asking", async () => {
    w = world({ decision: "allowForChat" });
    const session = w.service.newChat();
    scriptEdit(w.model, "3000", "8080", "e1", "Now 8080.");
    await session.prompt("Change it to 8080.");
    scriptEdit(w.model, "8080", "9090", "e2", "Now 9090.");
    await session.prompt("and now 9090");
    assert.equal(w.approvals.length, 1, "asked for the first edit only");
    assert.equal(session.allowsEditsForChat, true);
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG.replace("3000", "9090"));
    // A new chat asks again.
    const other = w.service.newChat();
    scriptEdit(w.model, "9090", "7070", "e3", "Now 7070.");
    await other.prompt("and 7070");
    assert.equal(w.approvals.length, 2);
  });

  it("an edit that cannot apply is never shown to the user; the model gets the reason", async () => {
    w = world({ decision: "allow" });
    const session = w.service.newChat();
    scriptEdit(w.model, "4000", "8080", "e1", "Sorry.");
    await session.prompt("Change 4000 to 8080.");
    assert.equal(w.approvals.length, 0);
    const result = w.model.requests[1]!.find((m): m is ToolResultMessage => m.role === "toolResult");
    assert.ok(result?.isError);
    assert.match(textOf(result), /not found|no match|does not contain/i);
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG);
  });
});
