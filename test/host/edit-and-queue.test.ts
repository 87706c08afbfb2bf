// Edit, switch and follow-ups through the real extension: the webview's messages go through the
// host's validation and message handlers, the real pi-ai OpenAI adapter talks to a local server, and
// the transcript is the one on disk in the extension's storage.
// Named to run after chat.test.ts, which checks that activation alone loads no provider bundle.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { HostMessage } from "../../src/shared/protocol";
import { chatItems } from "../../src/shared/reducer";
import type { ChatCompletionRequest, OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor } from "./helpers";

/** The user and assistant texts of a request, as the server received them. */
function dialogue(request: ChatCompletionRequest): string[] {
  return request.messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => ("text" in p ? p.text : "")).join("")}`);
}

const isHostMessage = (m: unknown): m is HostMessage => typeof m === "object" && m !== null && !Array.isArray(m);

describe("branches and follow-ups in the extension host", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
  });

  after(async () => {
    await server?.close();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  it("Edit on turn 2 of 4 sends turn 1 and the edited turn 2 only, keeps the old branch, and switching back restores it", async () => {
    for (let turn = 1; turn <= 4; turn++) {
      server.push(() => ({ text: `answer ${turn}` }));
      await api.view.receive({ type: "chat/send", v: 1, text: `prompt ${turn}` });
    }
    const session = api.screen.currentSession;
    const prompt2 = session.messages.findIndex((m) => m.role === "user" && JSON.stringify(m.content).includes("prompt 2"));
    const before = server.chatRequests().length;
    const posted = api.view.posted!;
    const postedBefore = posted.length;

    server.push(() => ({ text: "answer 2, edited" }));
    await api.view.receive({ type: "branch/editPrompt", v: 1, messageIndex: prompt2, text: "prompt 2, edited" });
    const request = server.chatRequests()[before]!;
    assert.deepEqual(dialogue(request), ["user: prompt 1", "assistant: answer 1", "user: prompt 2, edited"]);
    // The view was told to drop the old turns below the fork and shows the switcher: no snapshot.
    const sent = posted.slice(postedBefore).filter(isHostMessage);
    assert.ok(!sent.some((m) => m.type === "view/snapshot"), "an edit posts the changed part, not a snapshot");
    const texts = () => chatItems(api.screen.currentSession.viewState).flatMap((i) => (i.kind === "user" ? [i.text] : []));
    assert.deepEqual(texts(), ["prompt 1", "prompt 2, edited"]);
    assert.deepEqual(api.screen.currentSession.viewState.forks, [{ messageIndex: prompt2, showAt: prompt2, index: 1, count: 2 }]);

    await api.view.receive({ type: "branch/switch", v: 1, messageIndex: prompt2, to: 0 });
    assert.deepEqual(texts(), ["prompt 1", "prompt 2", "prompt 3", "prompt 4"]);
    server.push(() => ({ text: "answer 5" }));
    await api.view.receive({ type: "chat/send", v: 1, text: "prompt 5" });
    assert.deepEqual(dialogue(server.chatRequests().at(-1)!).slice(-3), ["user: prompt 4", "assistant: answer 4", "user: prompt 5"]);

    // The chat file keeps both branches and the chosen leaf: reopening it shows the first branch.
    const chatId = session.id;
    await vscode.commands.executeCommand("piChat.newChat");
    await api.view.receive({ type: "chat/switch", v: 1, chatId });
    assert.deepEqual(texts(), ["prompt 1", "prompt 2", "prompt 3", "prompt 4", "prompt 5"]);
  });

  it("a follow-up typed during the reply is sent after it, in order; a removed one is never sent", async () => {
    const session = api.screen.currentSession;
    // The user types while the reply runs: from inside the server's steps, so it is during the run.
    server.push(
      () => {
        void api.view.receive({ type: "queue/add", v: 1, kind: "followUp", text: "drop me" });
        void api.view.receive({ type: "queue/add", v: 1, kind: "followUp", text: "then count them" });
        return { toolCalls: [{ id: "call_ls", name: "list_files", arguments: { path: "." } }] };
      },
      () => {
        const dropped = session.viewState.queue.find((q) => q.text === "drop me");
        assert.ok(dropped, "the follow-up is queued while the reply runs");
        void api.view.receive({ type: "queue/remove", v: 1, id: dropped.id });
        return { text: "listed" };
      },
      () => ({ text: "followed up" }),
    );
    await api.view.receive({ type: "chat/send", v: 1, text: "list the files" });
    await waitFor("the follow-up's answer", () => !session.running && JSON.stringify(session.messages.at(-1)).includes("followed up"));
    const all = server.chatRequests().flatMap(dialogue);
    assert.ok(!all.some((l) => l.includes("drop me")), "the removed follow-up never reached the model");
    // The tool call's assistant message has no text; the tool result is not a user/assistant line.
    assert.deepEqual(dialogue(server.chatRequests().at(-1)!).slice(-4), ["user: list the files", "assistant: ", "assistant: listed", "user: then count them"]);
    assert.deepEqual(session.viewState.queue, []);
  });
});
