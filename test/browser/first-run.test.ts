// A new user's first minutes in the real webview bundle at the sidebar's default width (300 px):
// the empty chat says nothing is set up and offers the ways to set a model up, an error offers
// every way out, the header names the model, a model change is confirmed, the meter counts only
// what was sent, and tool cards say what happened in words.
import * as assert from "node:assert/strict";
import type { ContextMeter } from "../../src/shared/context-meter";
import { emptyChatState } from "../../src/shared/reducer";
import { ChatPage } from "./harness";
import { noKeyNotice, Script, toolCall } from "./script";

/** VS Code's default sidebar width. */
const SIDEBAR = { width: 300, height: 640 };

/** What the host's meter says after a prompt whose request never went out: an estimate, nothing used. */
const unsentMeter: ContextMeter = {
  tokens: 2_100,
  estimated: true,
  window: 200_000,
  chat: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 },
  priced: true,
};

describe("First run at 300 px", function () {
  this.timeout(30_000);
  let chat: ChatPage;

  beforeEach(async () => {
    chat = await ChatPage.open(SIDEBAR);
  });

  afterEach(async () => {
    await chat.assertClean();
    await chat.close();
  });

  it("with no model set up, the empty chat says so and offers the ways to set one up", async () => {
    await chat.snapshot(emptyChatState, {
      title: "",
      status: { modelLabel: "claude-sonnet-4-5", modelDetail: "Anthropic · claude-sonnet-4-5", setup: "noKey" },
    });
    const setup = chat.page.getByRole("region", { name: "Set up a model" });
    assert.match(await setup.innerText(), /Set up a model to start[\s\S]*Nothing is set up yet/);
    assert.equal(await chat.page.getByText("Ask Pi about your code").count(), 0, "not the invitation to ask: nothing could answer");
    const buttons = setup.getByRole("button");
    assert.deepEqual(await buttons.allInnerTexts(), [
      "Choose provider and model",
      "Sign in to a provider",
      "Set API key",
      "Use a local model",
      "Get started: walkthrough",
    ]);
    for (const [name, command] of [
      ["Choose provider and model", "selectChatModel"],
      ["Sign in to a provider", "signIn"],
      ["Set API key", "setApiKey"],
      ["Use a local model", "useLocalModel"],
      ["Get started: walkthrough", "openWalkthrough"],
    ] as const) {
      await chat.clearPosted();
      await setup.getByRole("button", { name }).click();
      assert.deepEqual(
        (await chat.postedOf("workbench/runCommand")).map((m) => m.command),
        [command],
        name,
      );
    }
    // Each button is whole at 300 px: one line, not cut.
    for (const box of await buttons.evaluateAll((els) => els.map((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, height: el.clientHeight })))) {
      assert.ok(box.scroll <= box.client + 1 && box.height < 40, JSON.stringify(box));
    }
    // Once a model can answer, the chat invites a question.
    await chat.send([
      { type: "view/status", status: { modelLabel: "Claude Sonnet 4.5", storage: "workspace", canContinue: false, editsAllowedForChat: false } },
    ]);
    assert.equal(await chat.page.getByText("Ask Pi about your code").count(), 1);
  });

  it("with VS Code models available, the first offer is to use them, and it says VS Code asks first", async () => {
    await chat.snapshot(emptyChatState, {
      title: "",
      status: { modelLabel: "claude-sonnet-4-5", modelDetail: "Anthropic · claude-sonnet-4-5", setup: "noKey", vscodeModels: true },
    });
    const setup = chat.page.getByRole("region", { name: "Set up a model" });
    assert.match(await setup.innerText(), /no key needed\. VS Code asks whether Pi Chat may use these models the first time/);
    const buttons = setup.getByRole("button");
    assert.deepEqual(await buttons.allInnerTexts(), [
      "Use the models VS Code already has",
      "Choose provider and model",
      "Sign in to a provider",
      "Set API key",
      "Use a local model",
      "Get started: walkthrough",
    ]);
    assert.match((await buttons.first().getAttribute("class")) ?? "", /\bprimary\b/);
    await chat.clearPosted();
    await buttons.first().click();
    assert.deepEqual(
      (await chat.postedOf("workbench/runCommand")).map((m) => m.command),
      ["useVscodeModels"],
    );
    for (const box of await buttons.evaluateAll((els) => els.map((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, height: el.clientHeight })))) {
      assert.ok(box.scroll <= box.client + 1 && box.height < 40, JSON.stringify(box));
    }
  });

  it("a local server with no URL says that, with the same ways out", async () => {
    await chat.snapshot(emptyChatState, { title: "", status: { modelLabel: "Server's first model", setup: "noServer" } });
    const setup = chat.page.getByRole("region", { name: "Set up a model" });
    assert.match(await setup.innerText(), /no base URL is set/);
    assert.equal(await setup.getByRole("button", { name: "Use a local model" }).count(), 1);
  });

  it("the no-key error offers Set API Key, Choose Provider/Model and Use a Local Model, and the meter shows nothing unsent", async () => {
    await chat.snapshot(emptyChatState, { title: "Where is the port set?", status: { modelLabel: "claude-sonnet-4-5" } });
    const script = new Script().start().user("Where is the port set?").message(noKeyNotice()).end();
    await chat.events(script.take());
    await chat.send([{ type: "chat/event", event: { type: "context/meter", meter: unsentMeter } }]);
    const notice = chat.page.locator(".notice-error");
    assert.match(await notice.innerText(), /none is stored in VS Code, and ANTHROPIC_API_KEY is not set/);
    assert.deepEqual(await notice.getByRole("button").allInnerTexts(), ["Set API Key", "Choose Provider/Model", "Use a Local Model"]);
    await chat.clearPosted();
    await notice.getByRole("button", { name: "Use a Local Model" }).click();
    assert.deepEqual(
      (await chat.postedOf("workbench/runCommand")).map((m) => m.command),
      ["useLocalModel"],
    );
    // Nothing was sent: no "~2.1k" in the header.
    assert.equal(await chat.page.getByTestId("context-meter").count(), 0);
    assert.doesNotMatch(await chat.page.locator(".header").innerText(), /2\.1k|~0/);
  });

  it("a Retry on an error notice continues the chat", async () => {
    await chat.snapshot();
    const script = new Script()
      .start()
      .user("hi")
      .message({
        role: "localNotice",
        level: "error",
        text: "Could not reach the OpenAI-compatible server at http://127.0.0.1:9/v1: connection refused, is the server running?",
        fix: "Start the server, or set the right base URL in the settings (piChat.baseUrl).",
        fixCommand: "openSettings",
        moreFixCommands: ["selectChatModel", "retry"],
        detail: "Connection error.",
        timestamp: 3,
      })
      .end();
    await chat.events(script.take());
    const notice = chat.page.locator(".notice-error");
    assert.equal(await chat.page.locator(".notice").count(), 1, "one card");
    assert.deepEqual(await notice.getByRole("button").allInnerTexts(), ["Open Settings", "Choose Provider/Model", "Retry"]);
    await chat.clearPosted();
    await notice.getByRole("button", { name: "Retry" }).click();
    assert.equal((await chat.postedOf("chat/continue")).length, 1);
  });

  it("the header shows the model's name whole, and a change of model is confirmed", async () => {
    await chat.snapshot(emptyChatState, {
      title: "Move the dev server to port 8080",
      status: { modelLabel: "Claude Sonnet 4.5", modelDetail: "Anthropic · claude-sonnet-4-5" },
    });
    const label = chat.page.locator(".model-label");
    assert.equal(await label.innerText(), "Claude Sonnet 4.5");
    const cut = await label.evaluate((el) => el.scrollWidth > el.clientWidth);
    assert.equal(cut, false, "the name is not cut to a few letters at 300 px");
    assert.match((await chat.page.locator(".model-button").getAttribute("aria-label")) ?? "", /Claude Sonnet 4\.5 \(Anthropic · claude-sonnet-4-5\)/);
    await chat.send([
      {
        type: "view/status",
        status: {
          modelLabel: "GPT-5",
          modelDetail: "OpenAI · gpt-5",
          modelNote: "This chat now uses GPT-5, and new chats start with it.",
          storage: "workspace",
          canContinue: false,
          editsAllowedForChat: false,
        },
      },
    ]);
    assert.equal(await label.innerText(), "GPT-5");
    assert.equal(await chat.page.getByRole("status").filter({ hasText: "This chat now uses GPT-5, and new chats start with it." }).count(), 1);
  });

  it("tool cards say what happened in words, with the tool's name in the details", async () => {
    await chat.snapshot();
    const script = new Script()
      .start()
      .user("What port?")
      .assistant([toolCall("r1", "read_file", { path: "src/config.ts" })])
      .toolStart("r1", "read_file", { path: "src/config.ts" })
      .toolEnd("r1", "read_file", { text: "export const config = {\n  port: 3000,\n};", details: { path: "src/config.ts", startLine: 1, endLine: 4 } });
    await chat.events(script.end().take());
    const card = chat.page.locator('.tool[data-item="r1"]');
    assert.equal(await card.getAttribute("aria-label"), "Read src/config.ts, lines 1\u20134: done");
    assert.match(await card.locator(".card-head").innerText(), /^Read\s+src\/config\.ts\s+lines 1–4/);
    assert.doesNotMatch(await card.locator(".card-head").innerText(), /read_file|L1/);
    await card.locator(".tool-result summary").click();
    assert.match(await card.locator(".tool-call-name").innerText(), /Tool: read_file/);
  });

  it("the meter's details say what each figure counts, so the header and the last turn reconcile", async () => {
    await chat.snapshot();
    await chat.events(
      new Script()
        .start()
        .user("hi")
        .assistant([{ type: "text", text: "Hello." }])
        .end()
        .take(),
    );
    const meter: ContextMeter = {
      tokens: 738,
      estimated: false,
      window: 32_768,
      lastTurn: { input: 1_359, output: 40, cacheRead: 0, cacheWrite: 0, cost: 0 },
      chat: { input: 1_359, output: 40, cacheRead: 0, cacheWrite: 0, cost: 0 },
      priced: false,
      fixed: { instructions: 410, tools: 1_630, toolCount: 9, mcpTools: 5_100, mcpToolCount: 12 },
    };
    await chat.send([{ type: "chat/event", event: { type: "context/meter", meter } }]);
    await chat.page.getByTestId("context-meter").click();
    const details = chat.page.getByRole("dialog", { name: "Context and usage" });
    assert.match(await details.getByTestId("meter-counts").innerText(), /the last request as the provider counted it, plus its answer/);
    // What every request carries besides the conversation, MCP tools apart (issue 27).
    assert.equal(
      await details.getByTestId("meter-fixed").innerText(),
      "Sent with every request, in tokens: instructions ~410, 9 tools ~1,630, 12 MCP tools ~5,100.",
    );
    assert.match(await details.getByTestId("meter-usage-note").innerText(), /sends the context once per request/);
  });
});
