// What a chat keeps of the user's choices across a VS Code restart (the runner starts VS Code
// twice over the same storage): its own model (the local server sees its id) and the branch the
// user was on. Phase 1 makes two chats on two models, one with an edited turn switched back to
// the first branch; phase 2 reopens them.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, workspaceUri } from "./helpers";

const phase = process.env.PI_CHAT_TEST_PHASE === "2" ? 2 : 1;
const savedFile = () => workspaceUri(".pi-chat-test", "choices.json");

interface Saved {
  a: string;
  b: string;
}

describe(`a chat's model and branch across a restart (phase ${phase})`, function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
  });
  after(async () => server?.close());

  const prompts = () => chatItems(api.screen.currentSession.viewState).flatMap((i) => (i.kind === "user" ? [i.text] : []));

  if (phase === 1) {
    it("two chats on two models (the local server sees each id); one edited and switched back", async () => {
      await vscode.commands.executeCommand("piChat.newChat");
      await vscode.commands.executeCommand("piChat.selectChatModel", { provider: "openai-compatible", model: "model-a" });
      assert.match(api.screen.currentSession.model?.modelId ?? "", /^model-a$/);
      server.push(
        () => ({ text: "a1" }),
        () => ({ text: "a2" }),
      );
      await api.view.receive({ type: "chat/send", v: 1, text: "first in a" });
      await api.view.receive({ type: "chat/send", v: 1, text: "second in a" });
      const a = api.screen.currentSession;
      const second = a.messages.findIndex((m) => m.role === "user" && JSON.stringify(m.content).includes("second in a"));
      server.push(() => ({ text: "a2, edited" }));
      await api.view.receive({ type: "branch/editPrompt", v: 1, messageIndex: second, text: "second in a, edited" });
      await api.view.receive({ type: "branch/switch", v: 1, messageIndex: second, to: 0 });
      assert.deepEqual(prompts(), ["first in a", "second in a"]);

      await vscode.commands.executeCommand("piChat.newChat");
      await vscode.commands.executeCommand("piChat.selectChatModel", { provider: "openai-compatible", model: "model-b" });
      server.push(() => ({ text: "b1" }));
      await api.view.receive({ type: "chat/send", v: 1, text: "first in b" });
      const b = api.screen.currentSession;
      assert.deepEqual(
        server
          .chatRequests()
          .slice(-4)
          .map((r) => r.model),
        ["model-a", "model-a", "model-a", "model-b"],
      );
      // A new chat starts from the settings.
      await vscode.commands.executeCommand("piChat.newChat");
      server.push(() => ({ text: "c1" }));
      await api.view.receive({ type: "chat/send", v: 1, text: "first in c" });
      assert.equal(server.chatRequests().at(-1)?.model, "local-model");
      await vscode.workspace.fs.writeFile(savedFile(), new TextEncoder().encode(JSON.stringify({ a: a.id, b: b.id } satisfies Saved)));
    });
  } else {
    it("each chat comes back on its own model and on the branch it was left on", async () => {
      const saved = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(savedFile()))) as Saved;
      const current = api.screen.currentSession.id;
      try {
        await api.view.receive({ type: "chat/switch", v: 1, chatId: saved.a });
        assert.deepEqual(prompts(), ["first in a", "second in a"], "the branch chosen before the restart");
        assert.deepEqual(
          api.screen.currentSession.viewState.forks.map((f) => `${f.index + 1}/${f.count}`),
          ["1/2"],
        );
        server.push(() => ({ text: "a3" }));
        await api.view.receive({ type: "chat/send", v: 1, text: "third in a" });
        assert.equal(server.chatRequests().at(-1)?.model, "model-a");

        await api.view.receive({ type: "chat/switch", v: 1, chatId: saved.b });
        server.push(() => ({ text: "b2" }));
        await api.view.receive({ type: "chat/send", v: 1, text: "second in b" });
        assert.equal(server.chatRequests().at(-1)?.model, "model-b");
      } finally {
        // The restore test of this phase expects the chat it left on screen.
        await api.view.receive({ type: "chat/switch", v: 1, chatId: current });
      }
    });
  }
});
