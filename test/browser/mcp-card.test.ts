// The MCP card in the real webview bundle: one card that asks with the server, the tool, the
// arguments and the server's annotations (said to approve nothing), Allow / Deny with a reason /
// Always allow <server>/<tool>, then the decision and the result.
import * as assert from "node:assert/strict";
import { type ChatPage, useChatPage } from "./harness";
import { Script, toolCall } from "./script";

describe("MCP cards", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  function asking(id: string) {
    const args = { message: "hello" };
    return new Script()
      .start()
      .user("Echo.")
      .assistant([toolCall(id, "mcp__everything__echo", args)])
      .toolStart(id, "mcp__everything__echo", args)
      .raw({
        type: "approval/request",
        toolCallId: id,
        toolName: "mcp__everything__echo",
        mcp: { server: "everything", tool: "echo", arguments: '{\n  "message": "hello"\n}', annotations: ["readOnlyHint: true"] },
      });
  }

  it("asks on one card with server, tool, arguments and annotations; Always allow posts the decision", async () => {
    const script = asking("mcp-1");
    await chat.events(script.take());
    const card = chat.page.locator('.mcp-card[data-item="mcp-1"]');
    assert.equal(await card.count(), 1);
    assert.equal(await card.locator(".tool-name").innerText(), "everything / echo");
    assert.equal(await card.locator(".mcp-arguments").innerText(), '{\n  "message": "hello"\n}');
    assert.match(await card.locator(".mcp-annotations").innerText(), /readOnlyHint: true.*they allow nothing/);
    assert.match(await card.locator(".command-outcome").innerText(), /Waiting for your approval/);
    await chat.clearPosted();
    await card.getByRole("button", { name: "Always allow everything/echo in this workspace" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "approval/decide", v: 1, toolCallId: "mcp-1", decision: "allowAlways" }]);
    await chat.events(
      script
        .raw({ type: "approval/decided", toolCallId: "mcp-1", decision: "allowed", rule: "everything/echo" })
        .toolEnd("mcp-1", "mcp__everything__echo", { text: "Echo: hello", details: { server: "everything", tool: "echo" }, isError: false })
        .take(),
    );
    assert.match(await card.locator(".command-decision").innerText(), /Allowed always, for everything\/echo in this workspace/);
    assert.match(await card.locator(".command-outcome").innerText(), /Done/);
    await card.locator(".tool-result summary").click();
    assert.match(await card.locator(".tool-result pre").innerText(), /Echo: hello/);
  });

  it("Deny sends the reason typed on the card", async () => {
    await chat.events(asking("mcp-2").take());
    const card = chat.page.locator('.mcp-card[data-item="mcp-2"]');
    await chat.clearPosted();
    await card.getByRole("textbox", { name: "Reason for denying (optional)" }).fill("not now");
    await card.getByRole("button", { name: "Deny" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "approval/decide", v: 1, toolCallId: "mcp-2", decision: "deny", reason: "not now" }]);
  });
});
