// Follow-ups and steering while a reply runs, in a real ChatService over the real store with
// pi-ai's faux provider. The user "types" from inside a model step (the run is going then):
// what each next request holds, what the file holds, and what Stop leaves.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { fauxAssistantMessage, type Message } from "@earendil-works/pi-ai";
import type { ChatSession } from "../../../src/core/session";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel, reply, textOf, type ScriptedModel } from "../../support/scripted-model";

interface World extends ChatWorld {
  model: ScriptedModel;
}

function world(): World {
  const model = createScriptedModel();
  return { ...chatWorld({ resolveModel: async () => model.binding }), model };
}

/** The user/assistant/tool texts of a request or a transcript, in order. */
function dialogue(messages: readonly (Message | AgentMessage)[]): string[] {
  return messages.flatMap((m) =>
    m.role === "user" || m.role === "assistant" ? [`${m.role}: ${textOf(m as Message)}`] : m.role === "toolResult" ? [`tool: ${m.toolName}`] : [],
  );
}

async function onDisk(w: World, session: ChatSession): Promise<string[]> {
  const reopened = await w.reopen().open(session.id);
  assert.ok(reopened.ok);
  return dialogue(reopened.session.messages);
}

describe("follow-ups and steering (core, faux provider)", () => {
  let w: World;
  afterEach(() => w?.cleanup());

  it("steer lands after the tool call, follow-ups after the answer, in the order typed; each is saved only when delivered", async () => {
    w = world();
    const session = w.service.newChat();
    let savedDuringRun: string[] = [];
    w.model.push(
      () => {
        void session.send("followUp", "then run the tests");
        void session.send("steer", "use port 8080");
        void session.send("followUp", "and update the README");
        assert.deepEqual(
          session.viewState.queue.map((q) => `${q.kind}: ${q.text}`),
          ["followUp: then run the tests", "steer: use port 8080", "followUp: and update the README"],
        );
        return fauxAssistantMessage([{ type: "toolCall", id: "call-1", name: "read_file", arguments: { path: "src/config.ts" } }], { stopReason: "toolUse" });
      },
      () => {
        savedDuringRun = dialogue(session.messages);
        return fauxAssistantMessage("Port 3000; noted, 8080.");
      },
      reply.text("Tests and README: on it."),
    );
    await session.prompt("read the config");

    assert.deepEqual(
      dialogue(w.model.requests[1]!).slice(-3),
      ["assistant: ", "tool: read_file", "user: use port 8080"],
      "the steer comes right after the tool result",
    );
    assert.ok(!savedDuringRun.includes("user: then run the tests"), "a queued follow-up is not saved before it is delivered");
    assert.deepEqual(dialogue(w.model.requests[2]!).slice(-3), [
      "assistant: Port 3000; noted, 8080.",
      "user: then run the tests",
      "user: and update the README",
    ]);
    const expected = [
      "user: read the config",
      "assistant: ",
      "tool: read_file",
      "user: use port 8080",
      "assistant: Port 3000; noted, 8080.",
      "user: then run the tests",
      "user: and update the README",
      "assistant: Tests and README: on it.",
    ];
    assert.deepEqual(dialogue(session.messages), expected);
    assert.deepEqual(await onDisk(w, session), expected);
    assert.deepEqual(session.viewState.queue, []);
    assert.equal(w.model.pending(), 0);
  });

  it("a removed chip sends nothing and saves nothing", async () => {
    w = world();
    const session = w.service.newChat();
    w.model.push(() => {
      void session.send("followUp", "forget this one");
      void session.send("followUp", "keep this one");
      const first = session.viewState.queue.find((q) => q.text === "forget this one");
      assert.ok(first);
      session.unqueue(first.id);
      return fauxAssistantMessage("first answer");
    }, reply.text("second answer"));
    await session.prompt("hello");
    assert.deepEqual(dialogue(w.model.requests[1]!).slice(-2), ["assistant: first answer", "user: keep this one"]);
    const all = [...w.model.requests.flatMap((r) => dialogue(r)), ...(await onDisk(w, session))];
    assert.ok(!all.some((line) => line.includes("forget this one")));
  });

  it("Stop keeps the queue and says so; nothing queued is sent or saved until Send now; Clear drops it", async () => {
    w = world();
    const session = w.service.newChat();
    w.model.push(() => {
      void session.send("followUp", "after the stop");
      void session.send("steer", "steer too late");
      session.abort();
      return fauxAssistantMessage("cut off");
    });
    await session.prompt("start");
    assert.equal(w.model.requests.length, 1, "no request after Stop");
    assert.equal(session.viewState.queueKept, true);
    assert.deepEqual(
      session.viewState.queue.map((q) => q.text),
      ["after the stop", "steer too late"],
    );
    assert.ok(!(await onDisk(w, session)).some((l) => l.includes("after the stop") || l.includes("steer too late")));

    // Send now: both, in order, as the next prompt.
    w.model.push(reply.text("got both"));
    await session.sendQueued();
    assert.deepEqual(dialogue(w.model.requests[1]!).slice(-2), ["user: after the stop", "user: steer too late"]);
    assert.deepEqual(session.viewState.queue, []);
    assert.equal(session.viewState.queueKept, false);

    // Clear: a kept queue goes without a request.
    w.model.push(() => {
      void session.send("followUp", "dropped");
      session.abort();
      return fauxAssistantMessage("cut off again");
    });
    await session.prompt("again");
    assert.equal(session.viewState.queue.length, 1);
    session.clearQueue();
    assert.deepEqual(session.viewState.queue, []);
    assert.equal(w.model.requests.length, 3);
    assert.ok(!(await onDisk(w, session)).some((l) => l.includes("dropped")));
  });

  it("when idle, send() is a prompt; a follow-up's attachments travel with it", async () => {
    w = world();
    const session = w.service.newChat();
    w.model.push(() => {
      void session.send("followUp", "look at this file", [{ path: "src/config.ts" }]);
      return fauxAssistantMessage("first");
    }, reply.text("second"));
    await session.prompt("hi");
    const roles = session.messages.slice(-4).map((m) => m.role);
    assert.deepEqual(roles, ["assistant", "fileAttachment", "user", "assistant"]);
    const attachment = session.messages[session.messages.length - 3]!;
    assert.ok(attachment.role === "fileAttachment" && attachment.path === "src/config.ts");
    assert.match(JSON.stringify(w.model.requests[1]), /src\/config\.ts/);
    w.model.push(reply.text("idle answer"));
    await session.send("followUp", "idle prompt");
    assert.equal(textOf(w.model.requests[2]!.at(-1) as Message), "idle prompt");
  });
});
