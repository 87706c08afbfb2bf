// VS Code's own language models in Pi Chat: a model registered by another extension (the scripted
// provider of test/fixtures/lm-provider-extension, loaded beside Pi Chat by scripts/run-host-tests.mjs)
// answers through vscode.lm and the adapter of src/host/vscode-models, through the one agent loop:
// streamed text, a tool call through our tools, an approval, Stop (the provider sees its token
// fire), the meter from countTokens/maxInputTokens, the transcript naming the model. On 1.100 the
// provider API does not exist: the picker has no such group, and a chat set to it says why.
import * as assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import * as vscode from "vscode";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/context/summary-prompt";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import type { ContextMeter } from "../../src/shared/context-meter";
import { chatItems } from "../../src/shared/reducer";
import { vscodeModelItems } from "../../src/host/vscode-models/picker-items";
import { CONFIG_3000, diskText, isHostMessage, resetConfigFile, useChatView, waitFor, workspaceUri } from "./helpers";

/** What the fixture extension exports (its activate()'s result). */
interface ScriptedProvider {
  registered(): boolean;
  pushScript(steps: ScriptStep[]): void;
  clear(): void;
  requests(): RecordedRequest[];
  tokenCounts(): number;
  cancellations(): number;
  nextCancellation(): Promise<void>;
  nextRequest(): Promise<RecordedRequest>;
}
type ScriptStep =
  | { text: string }
  | { toolCall: { callId: string; name: string; input: Record<string, unknown> } }
  | { waitForCancel: true }
  | { lmError: "Blocked" | "NoPermissions" | "NotFound"; message?: string };
interface RecordedPart {
  kind: string;
  value?: string;
  callId?: string;
  name?: string;
  content?: string[];
}
interface RecordedRequest {
  model: string;
  messages: { role: "user" | "assistant"; parts: RecordedPart[] }[];
  tools: { name: string }[];
}

const TOOLS_MODEL = "pi-chat-test/scripted-tools";
const PLAIN_MODEL = "pi-chat-test/scripted-plain";
/** A stored key of a user's, as long as an Anthropic key: every key Pi Chat knows is redacted from streams. */
const USERS_KEY = "sk-ant-api03-Zq8vWm2Lr5Tx7Yp1Kd4Hs6Jf9Gb3Nc0Ve2Xa8Uw5Qt1Ry7Io4Pl6Mk9Bh3Dn0Cg2Ej5Fs8";
const onOldest = () => vscode.version.startsWith("1.100.");

async function scriptedProvider(): Promise<ScriptedProvider> {
  const ext = vscode.extensions.getExtension<ScriptedProvider>("pi-chat-test.lm-provider");
  assert.ok(ext, "the provider extension is installed beside Pi Chat");
  return ext.activate();
}

function lastAssistant(messages: readonly AgentMessage[]): Extract<AgentMessage, { role: "assistant" }> | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "assistant") return m;
  }
  return undefined;
}

describe("VS Code language models", function () {
  this.timeout(120_000);
  const chat = useChatView();
  let provider: ScriptedProvider;

  before(async () => {
    provider = await scriptedProvider();
    // The scripted models say 4,000 input tokens, which puts lean mode on ("auto"): these tests run
    // the models as users have them (no lean).
    await vscode.workspace.getConfiguration("piChat").update("leanMode", "off", vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("leanMode", undefined, vscode.ConfigurationTarget.Global);
  });

  beforeEach(async () => {
    provider.clear();
    await resetConfigFile();
    await vscode.commands.executeCommand("piChat.newChat");
  });

  async function useModel(model: string): Promise<void> {
    await vscode.commands.executeCommand("piChat.selectChatModel", { provider: "vscode-lm", model });
  }

  describe("on the newest VS Code (1.139)", () => {
    before(function () {
      if (onOldest()) this.skip();
    });

    it("the picker lists the other extension's models first-class, with vendor and family, and says which take no tools", async () => {
      assert.equal(provider.registered(), true);
      const items = await vscodeModelItems(
        () => false,
        () => undefined,
      );
      assert.match(items[0]?.label ?? "", /^VS Code language models/);
      const tools = items.find((i) => i.id === TOOLS_MODEL);
      const plain = items.find((i) => i.id === PLAIN_MODEL);
      assert.ok(tools && plain, JSON.stringify(items));
      assert.equal(tools.label, "Scripted (tools)");
      assert.equal(tools.description, "pi-chat-test · pi-test");
      assert.equal(plain.description, "pi-chat-test · pi-test-plain · takes no tools");
    });

    it("a scripted answer streams into the chat; the transcript and the meter name the model and its figures", async () => {
      const { api } = chat();
      await useModel(TOOLS_MODEL);
      provider.pushScript([{ text: "Hello " }, { text: "from VS Code's model." }]);
      const posted = api.view.posted!;
      const before = posted.length;
      await api.view.receive({ type: "chat/send", v: 1, text: "Say hello." });
      await api.screen.currentSession.waitForIdle();
      const answer = lastAssistant(api.screen.currentSession.messages);
      assert.ok(answer, "an answer");
      assert.equal(answer.stopReason, "stop", answer.errorMessage);
      assert.deepEqual(answer.content, [{ type: "text", text: "Hello from VS Code's model." }]);
      assert.equal(answer.provider, "vscode-lm");
      assert.equal(answer.model, TOOLS_MODEL);
      // The request: the system prompt leads as a user message, then the prompt; our tools declared.
      const [request] = provider.requests();
      assert.ok(request);
      assert.equal(request.model, "scripted-tools");
      assert.deepEqual(
        request.messages.map((m) => m.role),
        ["user", "user"],
      );
      assert.match(request.messages[1]?.parts[0]?.value ?? "", /Say hello\./);
      assert.ok(request.tools.some((t) => t.name === "read_file") && request.tools.some((t) => t.name === "edit_file"), JSON.stringify(request.tools));
      // Usage from the model's own countTokens; the window from its maxInputTokens (4000).
      assert.ok(provider.tokenCounts() > 0, "countTokens was asked");
      assert.ok(answer.usage.input > 0 && answer.usage.output > 0, JSON.stringify(answer.usage));
      const meter = await waitFor("a meter with the model's window", () =>
        posted
          .slice(before)
          .flatMap((m): ContextMeter[] => (isHostMessage(m) && m.type === "chat/event" && m.event.type === "context/meter" ? [m.event.meter] : []))
          .find((m) => m.window === 4000 && m.lastTurn !== undefined),
      );
      assert.equal(meter.lastTurn?.input, answer.usage.input);
      // The transcript on disk names the model, in the chat's model line and in the answer.
      const stored = await new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(api.storageDir)).load(api.screen.currentSession.id);
      assert.ok(stored.ok);
      assert.deepEqual(stored.model, { provider: "vscode-lm", modelId: TOOLS_MODEL });
      assert.equal(lastAssistant(stored.messages)?.model, TOOLS_MODEL);
      // The header names it (from VS Code's listing, refreshed by the run).
      await waitFor("the header to name the model", () => /Scripted \(tools\)/.test(api.host.status.status().modelLabel));
    });

    it("a tool call goes through Pi Chat's tools: read, then an edit that waits for approval", async () => {
      const { api } = chat();
      await useModel(TOOLS_MODEL);
      provider.pushScript([{ text: "Reading." }, { toolCall: { callId: "call_read", name: "read_file", input: { path: "src/config.ts" } } }]);
      provider.pushScript([
        { toolCall: { callId: "call_edit", name: "edit_file", input: { path: "src/config.ts", oldText: "port: 3000,", newText: "port: 8080," } } },
      ]);
      provider.pushScript([{ text: "Changed it to 8080." }]);
      void api.view.receive({ type: "chat/send", v: 1, text: "Change the port to 8080." });
      const toolCallId = await waitFor(
        "the approval request",
        () => chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "tool" && i.approval?.state === "pending")?.id,
      );
      assert.equal(toolCallId, "call_edit");
      assert.equal(await diskText(workspaceUri("src", "config.ts")), CONFIG_3000, "nothing written before the approval");
      // The second request carried the read's result as a tool result part for the model's call.
      const second = provider.requests()[1];
      assert.ok(second);
      const assistant = second.messages.at(-2);
      assert.equal(assistant?.role, "assistant");
      assert.deepEqual(
        assistant?.parts.map((p) => p.kind),
        ["text", "toolCall"],
      );
      const result = second.messages.at(-1)?.parts[0];
      assert.equal(result?.kind, "toolResult");
      assert.equal(result?.callId, "call_read");
      assert.match(result?.content?.join("") ?? "", /port: 3000/);
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId, decision: "allow" });
      await api.screen.currentSession.waitForIdle();
      assert.match(await diskText(workspaceUri("src", "config.ts")), /port: 8080,/);
      assert.match(JSON.stringify(lastAssistant(api.screen.currentSession.messages)?.content), /Changed it to 8080\./);
      assert.equal(provider.requests().length, 3);
    });

    it("Stop mid-stream cancels the request: the provider sees its cancellation token fire", async () => {
      const { api } = chat();
      api.redactor.add(USERS_KEY);
      await useModel(TOOLS_MODEL);
      provider.pushScript([{ text: "Thinking about it" }, { waitForCancel: true }, { text: "never sent" }]);
      const requested = provider.nextRequest();
      const cancelled = provider.nextCancellation();
      void api.view.receive({ type: "chat/send", v: 1, text: "Take your time." });
      await requested;
      // The provider holds the answer open: its first words are on screen all the same, with a
      // user's long key known to the redactor (which once held back that many characters).
      await waitFor("the first words on screen", () =>
        chatItems(api.screen.currentSession.viewState).some((i) => i.kind === "assistant" && JSON.stringify(i).includes("Thinking about it")),
      );
      await api.view.receive({ type: "chat/stop", v: 1 });
      await cancelled;
      await api.screen.currentSession.waitForIdle();
      assert.equal(provider.cancellations(), 1);
      const answer = lastAssistant(api.screen.currentSession.messages);
      assert.equal(answer?.stopReason, "aborted");
      assert.doesNotMatch(JSON.stringify(answer?.content), /never sent/);
    });

    it("compaction: the summary is written by the VS Code model, and the next request carries it", async () => {
      const { api } = chat();
      await useModel(TOOLS_MODEL);
      const config = vscode.workspace.getConfiguration("piChat");
      await config.update("compaction.keepRecentTokens", 0, vscode.ConfigurationTarget.Global);
      try {
        provider.pushScript([{ text: "First answer." }]);
        await api.view.receive({ type: "chat/send", v: 1, text: "The deploy code is PINEAPPLE-42." });
        provider.pushScript([{ text: "Second answer." }]);
        await api.view.receive({ type: "chat/send", v: 1, text: "And the region is north." });
        await api.screen.currentSession.waitForIdle();
        provider.pushScript([{ text: "SUMMARY-XYZ: the deploy code is PINEAPPLE-42, the region north." }]);
        const status = await vscode.commands.executeCommand("piChat.compact", { instructions: "" });
        assert.equal(status, "done");
        const summaryRequest = provider.requests().at(-1);
        assert.ok(summaryRequest);
        assert.equal(summaryRequest.messages[0]?.parts[0]?.value, SUMMARY_SYSTEM_PROMPT, "the summary request leads with the summary prompt");
        provider.pushScript([{ text: "Third answer." }]);
        await api.view.receive({ type: "chat/send", v: 1, text: "What is the deploy code?" });
        await api.screen.currentSession.waitForIdle();
        const next = provider.requests().at(-1);
        assert.match(JSON.stringify(next?.messages), /SUMMARY-XYZ: the deploy code is PINEAPPLE-42/);
        assert.equal(lastAssistant(api.screen.currentSession.messages)?.model, TOOLS_MODEL);
      } finally {
        await config.update("compaction.keepRecentTokens", undefined, vscode.ConfigurationTarget.Global);
      }
    });

    it("first ten minutes: with no key, the empty chat offers VS Code's models; the command makes one this chat's and the default", async function () {
      const { api, server } = chat();
      const config = vscode.workspace.getConfiguration("piChat");
      const keyless = (["anthropic", "openai", "google"] as const).find((p) => !process.env[`${p.toUpperCase()}_API_KEY`]);
      if (!keyless || (await api.secrets.get(keyless))) this.skip();
      await config.update("provider", keyless, vscode.ConfigurationTarget.Global);
      await config.update("model", "", vscode.ConfigurationTarget.Global);
      try {
        await waitFor("the empty chat to offer VS Code's models", () => {
          const status = api.host.status.status();
          return status.setup === "noKey" && status.vscodeModels === true;
        });
        // The command (the offer's button): two models, so it asks; the one that takes tools comes first.
        let done = false;
        const command = Promise.resolve(vscode.commands.executeCommand("piChat.useVscodeModels")).then(() => (done = true));
        await waitFor("the quick pick to take the first model", async () => {
          await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
          return done;
        });
        await command;
        // A WorkspaceConfiguration is a snapshot: read the settings anew.
        const settings = vscode.workspace.getConfiguration("piChat");
        assert.equal(settings.get("provider"), "vscode-lm");
        assert.equal(settings.get("model"), TOOLS_MODEL);
        assert.deepEqual(api.screen.currentSession.model, { provider: "vscode-lm", modelId: TOOLS_MODEL });
        const status = api.host.status.status();
        assert.equal(status.setup, undefined, "no key needed");
        assert.equal(status.modelLabel, "Scripted (tools)");
        // A first prompt is answered without any key.
        provider.pushScript([{ text: "Answered without a key." }]);
        await api.view.receive({ type: "chat/send", v: 1, text: "Hello?" });
        await api.screen.currentSession.waitForIdle();
        assert.match(JSON.stringify(lastAssistant(api.screen.currentSession.messages)?.content), /Answered without a key\./);
      } finally {
        await config.update("provider", "openai-compatible", vscode.ConfigurationTarget.Global);
        await config.update("baseUrl", `${server.url}/v1`, vscode.ConfigurationTarget.Global);
        await config.update("model", "local-model", vscode.ConfigurationTarget.Global);
      }
    });

    it("errors are said plainly with the way out: a model without tools, a quota refusal, a model gone", async () => {
      const { api } = chat();
      const lastNotice = () => {
        const m = api.screen.currentSession.messages.at(-1);
        return m?.role === "localNotice" ? m : undefined;
      };
      await useModel(PLAIN_MODEL);
      await api.view.receive({ type: "chat/send", v: 1, text: "Hello?" });
      await api.screen.currentSession.waitForIdle();
      assert.match(lastNotice()?.text ?? "", /Scripted \(no tools\) \(pi-chat-test\/scripted-plain\) takes no tools/);
      assert.equal(lastNotice()?.fixCommand, "selectChatModel");
      assert.equal(provider.requests().length, 0, "nothing was sent to a model that cannot use the tools");

      await vscode.commands.executeCommand("piChat.newChat");
      await useModel(TOOLS_MODEL);
      provider.pushScript([{ lmError: "Blocked", message: "monthly quota used up" }]);
      await api.view.receive({ type: "chat/send", v: 1, text: "Hello again?" });
      await api.screen.currentSession.waitForIdle();
      const blocked = chatItems(api.screen.currentSession.viewState).filter((i) => i.kind === "notice");
      assert.match(JSON.stringify(blocked), /quota or rate limit/, JSON.stringify(api.screen.currentSession.messages.slice(-2)));

      await vscode.commands.executeCommand("piChat.newChat");
      await useModel("pi-chat-test/no-such-model");
      await api.view.receive({ type: "chat/send", v: 1, text: "Anyone?" });
      await api.screen.currentSession.waitForIdle();
      assert.match(lastNotice()?.text ?? "", /VS Code has no model “pi-chat-test\/no-such-model” now/);
    });
  });

  describe("on the oldest VS Code (1.100)", () => {
    before(function () {
      if (!onOldest()) this.skip();
    });

    it("no provider API: the picker has no VS Code group, and a chat set to it says why instead of failing", async () => {
      const { api } = chat();
      assert.equal(provider.registered(), false, "1.100 has no registerLanguageModelChatProvider");
      assert.deepEqual(
        await vscodeModelItems(
          () => false,
          () => undefined,
        ),
        [],
      );
      await useModel(TOOLS_MODEL);
      await api.view.receive({ type: "chat/send", v: 1, text: "Hello?" });
      await api.screen.currentSession.waitForIdle();
      const notice = api.screen.currentSession.messages.at(-1);
      assert.equal(notice?.role, "localNotice");
      assert.match(notice?.role === "localNotice" ? notice.text : "", /VS Code has no language models to offer/);
    });
  });
});
