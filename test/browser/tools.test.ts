// Tool cards go running → success|error with the tool's diff and file range; approval cards
// post the user's decision (with a reason for a denial) and show it once the host records it.
import * as assert from "node:assert/strict";
import { type ChatPage, useChatPage } from "./harness";
import { SAMPLE_DIFF, Script, toolCall } from "./script";

describe("tool and approval cards", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("shows a tool card running, then success with its diff, range link and Open diff", async () => {
    const script = new Script()
      .start()
      .user("Change the port to 8080.")
      .assistant([{ type: "text", text: "I'll edit it." }, toolCall("call-1", "edit_file", { path: "src/config.ts", old: "3000", new: "8080" })])
      .toolStart("call-1", "edit_file", { path: "src/config.ts" });
    await chat.events(script.take());

    const card = chat.page.locator('.tool[data-item="call-1"]');
    assert.equal(await card.count(), 1);
    assert.match(await card.getAttribute("class") ?? "", /tool-running/);
    assert.equal(await card.locator(".spinner").count(), 1, "spinner while running");
    assert.equal(await card.locator(".tool-name").innerText(), "edit_file");
    assert.equal(await card.locator(".tool-path").innerText(), "src/config.ts");

    await chat.events(
      script
        .toolEnd("call-1", "edit_file", { text: "Edited src/config.ts (1 line changed).", details: { diff: SAMPLE_DIFF, path: "src/config.ts", startLine: 3, endLine: 3 } })
        .take(),
    );
    assert.match(await card.getAttribute("class") ?? "", /tool-success/);
    assert.equal(await card.locator(".spinner").count(), 0);
    assert.equal(await card.locator(".icon.ok").count(), 1);

    // The diff: one removed and one added line, coloured by class, headers dropped.
    assert.equal(await card.locator(".diff-del").count(), 1);
    assert.equal(await card.locator(".diff-add").count(), 1);
    assert.match(await card.locator(".diff-del .diff-text").innerText(), /port: 3000/);
    assert.match(await card.locator(".diff-add .diff-text").innerText(), /port: 8080/);
    assert.equal(await card.locator(".diff-line", { hasText: "Index:" }).count(), 0);
    const [addBg, ctxBg] = await Promise.all([
      card.locator(".diff-add").first().evaluate((el) => getComputedStyle(el).backgroundColor),
      card.locator(".diff-ctx").first().evaluate((el) => getComputedStyle(el).backgroundColor),
    ]);
    assert.notEqual(addBg, ctxBg, "added lines are coloured");

    // Result text: collapsed, opens on click.
    const result = card.locator("details.tool-result");
    assert.equal(await result.getAttribute("open"), null);
    await result.locator("summary").click();
    assert.equal(await result.locator("pre").innerText(), "Edited src/config.ts (1 line changed).");

    await chat.clearPosted();
    await card.locator(".tool-range").click();
    await card.getByRole("button", { name: "Open diff" }).click();
    assert.deepEqual(await chat.posted(), [
      { type: "openFile", v: 1, path: "src/config.ts", line: 3 },
      { type: "openDiff", v: 1, toolCallId: "call-1" },
    ]);
  });

  it("shows a failed tool with its error open", async () => {
    const script = new Script()
      .start()
      .user("Read it")
      .assistant([toolCall("call-9", "read_file", { path: "missing.ts" })])
      .toolStart("call-9", "read_file", { path: "missing.ts" })
      .toolEnd("call-9", "read_file", { text: "File not found: missing.ts", isError: true })
      .end();
    await chat.events(script.take());
    const card = chat.page.locator('.tool[data-item="call-9"]');
    assert.match(await card.getAttribute("class") ?? "", /tool-error/);
    assert.equal(await card.locator("details.tool-result").getAttribute("open"), "");
    assert.equal(await card.locator(".tool-result pre").innerText(), "File not found: missing.ts");
  });

  async function pendingApproval(id: string): Promise<void> {
    const script = new Script()
      .start()
      .user("Change the port to 8080.")
      .assistant([toolCall(id, "edit_file", { path: "src/config.ts" })])
      .toolStart(id, "edit_file", { path: "src/config.ts" })
      .raw({ type: "approval_request", toolCallId: id, toolName: "edit_file", path: "src/config.ts", diff: SAMPLE_DIFF });
    await chat.events(script.take());
  }

  it("posts Allow, and shows the decision the host records", async () => {
    await pendingApproval("call-2");
    const card = chat.page.locator('.approval[data-item="approval:call-2"]');
    assert.equal(await card.count(), 1);
    assert.match(await card.getAttribute("class") ?? "", /approval-pending/);
    assert.equal(await card.locator(".diff-add").count(), 1, "the diff is shown for the decision");
    assert.equal(await card.getByRole("button", { name: "Allow", exact: true }).count(), 1);
    assert.equal(await card.getByRole("button", { name: "Deny", exact: true }).count(), 1);
    assert.equal(await card.getByRole("button", { name: "Allow edits for this chat" }).count(), 1);

    // The approval card comes right after its tool card.
    const order = await chat.page.locator("[data-item]").evaluateAll((els) => els.map((e) => e.getAttribute("data-item")));
    assert.equal(order[order.indexOf("call-2") + 1], "approval:call-2");

    await chat.clearPosted();
    await card.getByRole("button", { name: "Allow", exact: true }).click();
    assert.deepEqual(await chat.postedOf("approval"), [{ type: "approval", v: 1, toolCallId: "call-2", decision: "allow" }]);
    // A second click before the host answers does not post again.
    await card.getByRole("button", { name: "Allow", exact: true }).click({ force: true });
    assert.equal((await chat.postedOf("approval")).length, 1);

    await chat.events(
      new Script()
        .message({ role: "approvalNotice", toolCallId: "call-2", toolName: "edit_file", decision: "allowed", path: "src/config.ts", diff: SAMPLE_DIFF, timestamp: 5 })
        .take(),
    );
    assert.match(await card.getAttribute("class") ?? "", /approval-allowed/);
    assert.equal(await card.locator(".decision").innerText(), "Allowed");
    assert.equal(await card.getByRole("button", { name: "Allow", exact: true }).count(), 0);
  });

  it("posts Deny with the reason typed, and shows the denial with it", async () => {
    await pendingApproval("call-3");
    const card = chat.page.locator('.approval[data-item="approval:call-3"]');
    await card.getByRole("textbox", { name: /reason/i }).fill("  Keep 3000, the proxy expects it.  ");
    await chat.clearPosted();
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    assert.deepEqual(await chat.postedOf("approval"), [
      { type: "approval", v: 1, toolCallId: "call-3", decision: "deny", reason: "Keep 3000, the proxy expects it." },
    ]);
    await chat.events(
      new Script()
        .message({ role: "approvalNotice", toolCallId: "call-3", toolName: "edit_file", decision: "denied", reason: "Keep 3000, the proxy expects it.", path: "src/config.ts", timestamp: 6 })
        .take(),
    );
    assert.equal(await card.locator(".decision").innerText(), "Denied");
    assert.match(await card.locator(".approval-reason").innerText(), /Keep 3000, the proxy expects it\./);
  });

  it("posts Deny without a reason, and Allow edits for this chat", async () => {
    await pendingApproval("call-4");
    await chat.clearPosted();
    await chat.page.locator('.approval[data-item="approval:call-4"]').getByRole("button", { name: "Deny", exact: true }).click();
    await chat.events([{ type: "approval_cancelled", toolCallId: "call-4" }]);
    assert.equal(await chat.page.locator('[data-item="approval:call-4"]').count(), 0, "a cancelled request disappears");

    const script = new Script()
      .assistant([toolCall("call-5", "edit_file", { path: "src/b.ts" })])
      .toolStart("call-5", "edit_file", { path: "src/b.ts" })
      .raw({ type: "approval_request", toolCallId: "call-5", toolName: "edit_file", path: "src/b.ts", diff: SAMPLE_DIFF });
    await chat.events(script.take());
    await chat.page.locator('.approval[data-item="approval:call-5"]').getByRole("button", { name: "Allow edits for this chat" }).click();
    assert.deepEqual(await chat.postedOf("approval"), [
      { type: "approval", v: 1, toolCallId: "call-4", decision: "deny" },
      { type: "approval", v: 1, toolCallId: "call-5", decision: "allowForChat" },
    ]);
  });

  it("reaches the approval buttons with Tab and shows the focus ring", async () => {
    await pendingApproval("call-6");
    const card = chat.page.locator('.approval[data-item="approval:call-6"]');
    await card.getByRole("textbox", { name: /reason/i }).focus();
    await chat.page.keyboard.press("Tab");
    const focused = () => chat.page.evaluate(() => ({ text: document.activeElement?.textContent ?? "", outline: getComputedStyle(document.activeElement!).outlineStyle, color: getComputedStyle(document.activeElement!).outlineColor }));
    const allow = await focused();
    assert.equal(allow.text, "Allow");
    assert.equal(allow.outline, "solid", "a visible focus ring");
    assert.equal(allow.color, "rgb(0, 120, 212)", "drawn in the theme's focusBorder colour");
    await chat.page.keyboard.press("Tab");
    assert.equal((await focused()).text, "Deny");
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("approval"), [{ type: "approval", v: 1, toolCallId: "call-6", decision: "deny" }]);
  });

  it("a protected file's card says why it asks; a secret file's card shows a count, not the diff", async () => {
    const why = ".vscode/tasks.json is a protected file (**/.vscode/**): files like it can make VS Code, git, a package manager or CI run commands.";
    await chat.events(
      new Script()
        .assistant([toolCall("call-p", "edit_file", { path: ".vscode/tasks.json" })])
        .toolStart("call-p", "edit_file", { path: ".vscode/tasks.json" })
        .raw({ type: "approval_request", toolCallId: "call-p", toolName: "edit_file", path: ".vscode/tasks.json", diff: SAMPLE_DIFF, protection: why })
        .take(),
    );
    const card = chat.page.locator('.approval[data-item="approval:call-p"]');
    assert.equal(await card.locator(".approval-protection").textContent(), why);
    assert.equal(await card.locator(".diff-add").count(), 1, "an ordinary protected file still shows its diff");

    await chat.events(
      new Script()
        .assistant([toolCall("call-s", "edit_file", { path: ".env" })])
        .toolStart("call-s", "edit_file", { path: ".env" })
        .raw({ type: "approval_request", toolCallId: "call-s", toolName: "edit_file", path: ".env", diff: "secret file: 1 line changed", protection: ".env is a protected file", secret: true })
        .take(),
    );
    const secret = chat.page.locator('.approval[data-item="approval:call-s"]');
    assert.match((await secret.locator(".approval-secret").textContent()) ?? "", /^secret file: 1 line changed/);
    assert.equal(await secret.locator(".diff").count(), 0, "no diff view for a secret file");
    await chat.clearPosted();
    await secret.getByRole("button", { name: "Show the change in the editor" }).click();
    assert.deepEqual(await chat.postedOf("openDiff"), [{ type: "openDiff", v: 1, toolCallId: "call-s" }]);
  });
});
