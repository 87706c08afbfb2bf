// A local server's real context window, through the extension's own entry points (the settings, the
// view's chat/send, the header's status): a scripted server speaking Ollama's /api/ps gives the
// meter its loaded window before any prompt, and a real llama.cpp llama-server started with
// `-c 2048` gets no request that cannot fit, only an error card that names `-c` and lean mode.
import * as assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as vscode from "vscode";
import type { NoticeItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import { type LlamaServer, llamaServerBinary, startLlamaServer } from "../support/llama-server";
import { useChatView, waitFor } from "./helpers";

/** A local server that speaks Ollama's /api/ps and /v1/models, and counts the chat requests it gets. */
async function scriptedOllama(contextLength: number): Promise<{ url: string; chatRequests: () => number; close(): Promise<void> }> {
  let chats = 0;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    req.resume();
    if (req.method === "GET" && path === "/api/ps")
      send(200, { models: [{ name: "qwen2.5-coder:7b", model: "qwen2.5-coder:7b", context_length: contextLength }] });
    else if (req.method === "GET" && path === "/v1/models") send(200, { object: "list", data: [{ id: "qwen2.5-coder:7b", object: "model" }] });
    else {
      if (path === "/v1/chat/completions") chats++;
      send(404, { error: "not found" });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, chatRequests: () => chats, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("a local server's context window", function () {
  this.timeout(180_000);
  const view = useChatView();
  const config = () => vscode.workspace.getConfiguration("piChat");
  let restoreUrl: string | undefined;

  before(() => {
    restoreUrl = `${view().server.url}/v1`;
  });
  afterEach(async () => {
    await config().update("baseUrl", restoreUrl, vscode.ConfigurationTarget.Global);
    await config().update("model", "local-model", vscode.ConfigurationTarget.Global);
  });

  it("Ollama's loaded window (/api/ps) reaches the meter and the header before any prompt", async () => {
    const ollama = await scriptedOllama(8192);
    try {
      await vscode.commands.executeCommand("piChat.newChat");
      await config().update("model", "", vscode.ConfigurationTarget.Global);
      await config().update("baseUrl", `${ollama.url}/v1`, vscode.ConfigurationTarget.Global);
      const { api } = view();
      await waitFor("the meter to show the server's window", () => api.screen.currentSession.viewState.meter?.window === 8192);
      assert.equal(api.host.status.status().modelLabel, "qwen2.5-coder:7b", "the header names the served model, not “Server's first model”");
      assert.equal(ollama.chatRequests(), 0, "asking the window sent no chat request");
    } finally {
      await ollama.close();
    }
  });

  describe("a real llama-server started with -c 2048", () => {
    let llama: LlamaServer | undefined;
    before(async function () {
      if (!llamaServerBinary()) this.skip();
      llama = await startLlamaServer({ contextSize: 2048 });
    });
    after(async () => {
      await llama?.stop();
    });

    it("the first prompt is not sent: one error card names the window, -c, lean mode and the README; no compaction dead end", async () => {
      const { api } = view();
      await vscode.commands.executeCommand("piChat.newChat");
      await config().update("model", "", vscode.ConfigurationTarget.Global);
      await config().update("baseUrl", `${llama!.url}/v1`, vscode.ConfigurationTarget.Global);
      await api.view.receive({ type: "chat/send", v: 1, text: "Tell me a story about a cat." });
      const session = api.screen.currentSession;
      assert.equal(session.running, false);
      const cards = chatItems(session.viewState).filter((i): i is NoticeItem => i.kind === "notice");
      assert.equal(cards.length, 1, `one card: ${JSON.stringify(cards)}`);
      const card = cards[0]!;
      assert.equal(card.level, "error");
      assert.match(card.text, /did not send this message/);
      assert.match(card.text, /holds only 2,048 tokens/);
      assert.match(card.fix ?? "", /start llama-server with a larger window, for example `-c 16384`/);
      assert.match(card.fix ?? "", /lean mode \(setting piChat\.leanMode\)/);
      assert.match(card.fix ?? "", /#local-models/);
      assert.ok([card.fixCommand, ...(card.moreFixCommands ?? [])].includes("retry"), "Retry is on the card");
      assert.doesNotMatch(JSON.stringify(session.messages), /could not be summarized/);
      assert.equal(session.context.lastRequest, undefined, "no request was sent");
      assert.equal(session.viewState.meter?.window, 2048, "the meter shows the server's window");
      assert.match(api.host.status.status().modelLabel, /^stories260K\.gguf$/, "the header names the served model");
    });
  });
});
