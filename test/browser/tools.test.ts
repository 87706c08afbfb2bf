// Tool cards go running → success|error with the tool's diff and file range; approval cards
// post the user's decision (with a reason for a denial) and show it once the host records it.
import * as assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { type ChatPage, useChatPage } from "./harness";
import { stateFromTranscript } from "../../src/shared/reducer";
import type { StructuredDiff } from "../../src/shared/structured-diff";
import { assistantMessage, SAMPLE_CHANGE, SAMPLE_DIFF, Script, toolCall, userMessage } from "./script";

describe("tool and approval cards", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("read_file on an image: the card says what the image is and at what size Pi saw it, or that Pi could not", async () => {
    const script = new Script()
      .start()
      .user("Look at the screenshots.")
      .assistant([toolCall("img-1", "read_file", { path: "docs/wide.png" }), toolCall("img-2", "read_file", { path: "docs/shot.png" })])
      .toolStart("img-1", "read_file", { path: "docs/wide.png" })
      .toolEnd("img-1", "read_file", {
        text: "[Image: docs/wide.png, PNG, 3000×1000 px, 12 KB; shown scaled to 2000×667 px (PNG, 9 KB)]",
        details: {
          path: "docs/wide.png",
          startLine: 0,
          endLine: 0,
          totalLines: 0,
          truncated: false,
          bytes: 9000,
          fileBytes: 12000,
          image: { mimeType: "image/png", width: 3000, height: 1000, sent: { mimeType: "image/png", width: 2000, height: 667, bytes: 9000, scaled: true } },
        },
      })
      .toolStart("img-2", "read_file", { path: "docs/shot.png" })
      .toolEnd("img-2", "read_file", {
        text: "docs/shot.png is a PNG image (300×200 px, 2 KB). The current model cannot see images.",
        details: {
          path: "docs/shot.png",
          startLine: 0,
          endLine: 0,
          totalLines: 0,
          truncated: false,
          bytes: 0,
          fileBytes: 2000,
          image: { mimeType: "image/png", width: 300, height: 200, notSent: "The current model cannot see images." },
        },
      });
    await chat.events(script.take());
    const wide = chat.page.locator('.tool[data-item="img-1"]');
    assert.equal(await wide.locator(".tool-note").innerText(), "PNG 3000×1000, shown to Pi at 2000×667");
    assert.equal(await wide.locator(".tool-range").count(), 0, "an image has no line range");
    const shot = chat.page.locator('.tool[data-item="img-2"]');
    assert.equal(await shot.locator(".tool-note").innerText(), "PNG 300×200, not shown to Pi: The current model cannot see images.");
  });

  it("draws an edit from the hunks the host sent (several hunks, line numbers, no newline at the end); diff text alone draws nothing", async () => {
    const script = new Script()
      .start()
      .user("Capitalize c and u.")
      .assistant([toolCall("call-h", "edit_file", { path: "src/letters.txt" }), toolCall("call-t", "edit_file", { path: "src/other.txt" })])
      .toolStart("call-h", "edit_file", { path: "src/letters.txt" });
    await chat.events(script.take());
    // Exactly what the host posts: hunks, no diff text anywhere in the event.
    const twoHunks: StructuredDiff = {
      kind: "hunks",
      hunks: [
        {
          oldStart: 2,
          oldLines: 3,
          newStart: 2,
          newLines: 3,
          lines: [" b", "-c", "+C", " d"],
        },
        {
          oldStart: 20,
          oldLines: 2,
          newStart: 20,
          newLines: 2,
          lines: [" t", "-u", "\\ No newline at end of file", "+U", "\\ No newline at end of file"],
        },
      ],
    };
    await chat.rawEvents([{ type: "approval/request", toolCallId: "call-h", toolName: "edit_file", path: "src/letters.txt", diff: twoHunks }]);
    const card = chat.page.locator('.tool[data-item="call-h"]');
    const diff = card.locator(".diff");
    assert.equal(await diff.getAttribute("aria-label"), "Diff: 2 lines added, 2 removed");
    assert.deepEqual(await diff.locator(".diff-hunk .diff-text").allInnerTexts(), ["@@ -2,3 +2,3 @@", "@@ -20,2 +20,2 @@"]);
    const rows = await diff
      .locator(".diff-line:not(.diff-hunk)")
      .evaluateAll((lines) =>
        lines.map((l) => [
          l.className.replace("diff-line ", ""),
          l.querySelector(".diff-num")?.textContent ?? "",
          l.querySelector(".diff-sign")?.textContent ?? "",
        ]),
      );
    assert.deepEqual(rows, [
      ["diff-ctx", "2", " "],
      ["diff-del", "3", "-"],
      ["diff-add", "3", "+"],
      ["diff-ctx", "4", " "],
      ["diff-ctx", "20", " "],
      ["diff-del", "21", "-"],
      ["diff-meta", "", ""],
      ["diff-add", "21", "+"],
      ["diff-meta", "", ""],
    ]);
    assert.deepEqual(await diff.locator(".diff-meta .diff-text").allInnerTexts(), ["\\ No newline at end of file", "\\ No newline at end of file"]);
    assert.equal(await diff.locator(".diff-del .diff-text").first().textContent(), "removed: c", "the removal is said, not only coloured");

    // A result that reaches the view with only diff text (nothing the host sends: it always sends hunks) draws no diff.
    await chat.rawEvents(
      new Script()
        .toolStart("call-t", "edit_file", { path: "src/other.txt" })
        .toolEnd("call-t", "edit_file", { text: "Edited src/other.txt.", details: { diff: SAMPLE_DIFF, path: "src/other.txt", additions: 1, deletions: 1 } })
        .take(),
    );
    const textOnly = chat.page.locator('.tool[data-item="call-t"]');
    assert.match((await textOnly.getAttribute("class")) ?? "", /tool-success/);
    assert.equal(await textOnly.locator(".diff").count(), 0, "the webview does not parse diff text");
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
    assert.match((await card.getAttribute("class")) ?? "", /tool-running/);
    assert.equal(await card.locator(".spinner").count(), 1, "spinner while running");
    // What happened in words; the tool's own name is in the details (its tooltip, its result).
    assert.equal(await card.locator(".tool-verb").innerText(), "Edit");
    assert.equal(await card.locator(".tool-verb").getAttribute("title"), "Tool: edit_file");
    assert.equal(await card.locator(".tool-path").innerText(), "src/config.ts");

    await chat.events(
      script
        .toolEnd("call-1", "edit_file", {
          text: "Edited src/config.ts (1 line changed).",
          details: { diff: SAMPLE_DIFF, path: "src/config.ts", startLine: 3, endLine: 3 },
        })
        .take(),
    );
    assert.match((await card.getAttribute("class")) ?? "", /tool-success/);
    assert.equal(await card.locator(".spinner").count(), 0);
    assert.equal(await card.locator(".icon.ok").count(), 1);

    // The diff: one removed and one added line, coloured by class, headers dropped.
    assert.equal(await card.locator(".diff-del").count(), 1);
    assert.equal(await card.locator(".diff-add").count(), 1);
    assert.match(await card.locator(".diff-del .diff-text").innerText(), /port: 3000/);
    assert.match(await card.locator(".diff-add .diff-text").innerText(), /port: 8080/);
    assert.equal(await card.locator(".diff-line", { hasText: "Index:" }).count(), 0);
    const [addBg, ctxBg] = await Promise.all([
      card
        .locator(".diff-add")
        .first()
        .evaluate((el) => getComputedStyle(el).backgroundColor),
      card
        .locator(".diff-ctx")
        .first()
        .evaluate((el) => getComputedStyle(el).backgroundColor),
    ]);
    assert.notEqual(addBg, ctxBg, "added lines are coloured");

    // Result text: collapsed, opens on click.
    const result = card.locator("details.tool-result");
    assert.equal(await result.getAttribute("open"), null);
    await result.locator("summary").click();
    assert.equal(await result.locator("pre").innerText(), "Edited src/config.ts (1 line changed).");

    await chat.clearPosted();
    await card.locator(".tool-range").click();
    assert.deepEqual(await chat.posted(), [{ type: "editor/openFile", v: 1, path: "src/config.ts", line: 3 }]);
    assert.equal(await card.getAttribute("aria-label"), "Edit src/config.ts: applied", "the card is named by what it does");
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
    assert.match((await card.getAttribute("class")) ?? "", /tool-error/);
    assert.equal(await card.locator("details.tool-result").getAttribute("open"), "");
    assert.equal(await card.locator(".tool-result pre").innerText(), "File not found: missing.ts");
  });

  async function pendingApproval(id: string): Promise<void> {
    const script = new Script()
      .start()
      .user("Change the port to 8080.")
      .assistant([toolCall(id, "edit_file", { path: "src/config.ts" })])
      .toolStart(id, "edit_file", { path: "src/config.ts" })
      .raw({ type: "approval/request", toolCallId: id, toolName: "edit_file", path: "src/config.ts", diff: SAMPLE_CHANGE });
    await chat.events(script.take());
  }

  it("one edit is one card: running, waiting for your decision, applied — with the decision shown", async () => {
    await pendingApproval("call-2");
    const cards = chat.page.locator(".card");
    assert.equal(await cards.count(), 1, "the edit is one card while it waits");
    const card = chat.page.locator('.tool[data-item="call-2"]');
    assert.match((await card.getAttribute("class")) ?? "", /tool-waiting/);
    assert.equal(await card.getAttribute("aria-label"), "Edit src/config.ts: waiting for your decision");
    assert.equal(await card.locator(".tool-status").innerText(), "Waiting for your decision");
    assert.equal(await card.locator(".diff-add").count(), 1, "the diff is shown for the decision");
    assert.equal(await card.getByRole("button", { name: "Allow", exact: true }).count(), 1);
    assert.equal(await card.getByRole("button", { name: "Deny", exact: true }).count(), 1);
    assert.equal(await card.getByRole("button", { name: "Allow edits for this chat" }).count(), 1);
    assert.equal(await card.getByRole("button", { name: "Open diff" }).count(), 1);

    await chat.clearPosted();
    await card.getByRole("button", { name: "Allow", exact: true }).click();
    assert.deepEqual(await chat.postedOf("approval/decide"), [{ type: "approval/decide", v: 1, toolCallId: "call-2", decision: "allow" }]);
    // A second click before the host answers does not post again.
    await card.getByRole("button", { name: "Allow", exact: true }).click({ force: true });
    assert.equal((await chat.postedOf("approval/decide")).length, 1);

    // The host's answer: decided, applying, the tool's result, then the notice the transcript keeps.
    await chat.events([{ type: "approval/decided", toolCallId: "call-2", decision: "allowed" }]);
    assert.equal(await card.getAttribute("aria-label"), "Edit src/config.ts: applying");
    assert.equal(await card.getByRole("button", { name: "Allow", exact: true }).count(), 0);
    await chat.events(
      new Script()
        .toolEnd("call-2", "edit_file", {
          text: "Edited src/config.ts.",
          details: { diff: SAMPLE_DIFF, path: "src/config.ts", additions: 1, deletions: 1, firstChangedLine: 3 },
        })
        .message({
          role: "approvalNotice",
          toolCallId: "call-2",
          toolName: "edit_file",
          decision: "allowed",
          path: "src/config.ts",
          diff: SAMPLE_DIFF,
          timestamp: 5,
        })
        .take(),
    );
    assert.equal(await cards.count(), 1, "still one card after the decision and the notice");
    assert.match((await card.getAttribute("class")) ?? "", /tool-success/);
    assert.equal(await card.locator(".decision").innerText(), "Allowed");
    assert.equal(await card.locator(".tool-status").innerText(), "Applied");
    assert.equal(await card.getAttribute("aria-label"), "Edit src/config.ts: applied");
    assert.equal(await card.locator(".diff").count(), 1, "the diff once, not again in a second card");
    assert.equal(await card.locator(".diff-stat .sr-only").innerText(), "1 added, 1 removed");
    assert.equal(await card.locator(".diff-stat[aria-label]").count(), 0, "no aria-label on a plain span");
  });

  it("posts Deny with the reason typed, and shows the denial with it", async () => {
    await pendingApproval("call-3");
    const card = chat.page.locator('.tool[data-item="call-3"]');
    await card.getByRole("textbox", { name: /reason/i }).fill("  Keep 3000, the proxy expects it.  ");
    await chat.clearPosted();
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    assert.deepEqual(await chat.postedOf("approval/decide"), [
      { type: "approval/decide", v: 1, toolCallId: "call-3", decision: "deny", reason: "Keep 3000, the proxy expects it." },
    ]);
    await chat.events(
      new Script()
        .message({
          role: "approvalNotice",
          toolCallId: "call-3",
          toolName: "edit_file",
          decision: "denied",
          reason: "Keep 3000, the proxy expects it.",
          path: "src/config.ts",
          timestamp: 6,
        })
        .take(),
    );
    await chat.events(
      new Script()
        .toolEnd("call-3", "edit_file", { text: 'The user denied this edit: "Keep 3000, the proxy expects it.". Nothing was changed.', isError: true })
        .take(),
    );
    assert.equal(await chat.page.locator(".card").count(), 1, "one card");
    assert.equal(await card.locator(".tool-status").innerText(), "Denied");
    assert.equal(await card.getAttribute("aria-label"), "Edit src/config.ts: denied");
    assert.match(await card.locator(".approval-reason").innerText(), /Keep 3000, the proxy expects it\./);
    assert.equal(await card.locator("details.tool-result summary", { hasText: "Proposed change" }).count(), 1, "the diff stays, folded");
  });

  it("posts Deny without a reason, and Allow edits for this chat", async () => {
    await pendingApproval("call-4");
    await chat.clearPosted();
    await chat.page.locator('.tool[data-item="call-4"]').getByRole("button", { name: "Deny", exact: true }).click();
    await chat.events([{ type: "approval/cancelled", toolCallId: "call-4" }]);
    assert.equal(await chat.page.locator('.tool[data-item="call-4"] .approval-form').count(), 0, "a cancelled request stops asking");
    assert.equal(await chat.page.locator('.tool[data-item="call-4"]').count(), 1, "the call keeps its card");

    const script = new Script()
      .assistant([toolCall("call-5", "edit_file", { path: "src/b.ts" })])
      .toolStart("call-5", "edit_file", { path: "src/b.ts" })
      .raw({ type: "approval/request", toolCallId: "call-5", toolName: "edit_file", path: "src/b.ts", diff: SAMPLE_CHANGE });
    await chat.events(script.take());
    await chat.page.locator('.tool[data-item="call-5"]').getByRole("button", { name: "Allow edits for this chat" }).click();
    assert.deepEqual(await chat.postedOf("approval/decide"), [
      { type: "approval/decide", v: 1, toolCallId: "call-4", decision: "deny" },
      { type: "approval/decide", v: 1, toolCallId: "call-5", decision: "allowForChat" },
    ]);
  });

  it("reaches the approval buttons with Tab and shows the focus ring", async () => {
    await pendingApproval("call-6");
    const card = chat.page.locator('.tool[data-item="call-6"]');
    await card.getByRole("textbox", { name: /reason/i }).focus();
    await chat.page.keyboard.press("Tab");
    const focused = () =>
      chat.page.evaluate(() => ({
        text: document.activeElement?.textContent ?? "",
        outline: getComputedStyle(document.activeElement!).outlineStyle,
        color: getComputedStyle(document.activeElement!).outlineColor,
      }));
    const allow = await focused();
    assert.match(allow.text, /^Allow/);
    assert.equal(allow.outline, "solid", "a visible focus ring");
    assert.equal(allow.color, "rgb(0, 120, 212)", "drawn in the theme's focusBorder colour");
    await chat.page.keyboard.press("Tab");
    assert.match((await focused()).text, /^Deny/);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("approval/decide"), [{ type: "approval/decide", v: 1, toolCallId: "call-6", decision: "deny" }]);
  });

  it("a protected file's card says why it asks; a secret file's card shows a count, not the diff", async () => {
    const why = ".vscode/tasks.json is a protected file (**/.vscode/**): files like it can make VS Code, git, a package manager or CI run commands.";
    await chat.events(
      new Script()
        .assistant([toolCall("call-p", "edit_file", { path: ".vscode/tasks.json" })])
        .toolStart("call-p", "edit_file", { path: ".vscode/tasks.json" })
        .raw({ type: "approval/request", toolCallId: "call-p", toolName: "edit_file", path: ".vscode/tasks.json", diff: SAMPLE_CHANGE, protection: why })
        .take(),
    );
    const card = chat.page.locator('.tool[data-item="call-p"]');
    assert.equal(await card.locator(".approval-protection").textContent(), why);
    assert.equal(await card.locator(".diff-add").count(), 1, "an ordinary protected file still shows its diff");

    await chat.events(
      new Script()
        .assistant([toolCall("call-s", "edit_file", { path: ".env" })])
        .toolStart("call-s", "edit_file", { path: ".env" })
        .raw({
          type: "approval/request",
          toolCallId: "call-s",
          toolName: "edit_file",
          path: ".env",
          diff: { kind: "secret", changedLines: 1 },
          protection: ".env is a protected file",
          secret: true,
        })
        .take(),
    );
    const secret = chat.page.locator('.tool[data-item="call-s"]');
    assert.match((await secret.locator(".approval-secret").textContent()) ?? "", /^secret file: 1 line changed/);
    assert.equal(await secret.locator(".diff").count(), 0, "no diff view for a secret file");
    await chat.clearPosted();
    await secret.getByRole("button", { name: "Show the change in the editor" }).click();
    assert.deepEqual(await chat.postedOf("editor/openDiff"), [{ type: "editor/openDiff", v: 1, toolCallId: "call-s" }]);
  });

  it("a restored chat shows the same single card as the live run", async () => {
    const call = assistantMessage([toolCall("call-r", "edit_file", { path: "src/config.ts" })]);
    const result: AgentMessage = {
      role: "toolResult",
      toolCallId: "call-r",
      toolName: "edit_file",
      content: [{ type: "text", text: "Edited src/config.ts." }],
      details: { diff: SAMPLE_DIFF, path: "src/config.ts", additions: 1, deletions: 1, firstChangedLine: 3 },
      isError: false,
      timestamp: 3,
    };
    const notice: AgentMessage = {
      role: "approvalNotice",
      toolCallId: "call-r",
      toolName: "edit_file",
      decision: "allowed",
      path: "src/config.ts",
      diff: SAMPLE_DIFF,
      timestamp: 4,
    };
    const user = userMessage("Change the port to 8080.");
    await chat.events([
      { type: "message/start", message: user },
      { type: "message/end", message: user },
      { type: "message/start", message: call },
      { type: "message/end", message: call },
      { type: "tool/start", toolCallId: "call-r", toolName: "edit_file", args: { path: "src/config.ts" } },
      { type: "approval/request", toolCallId: "call-r", toolName: "edit_file", path: "src/config.ts", diff: SAMPLE_CHANGE },
      { type: "approval/decided", toolCallId: "call-r", decision: "allowed" },
      { type: "tool/end", toolCallId: "call-r", isError: false },
      { type: "message/start", message: result },
      { type: "message/end", message: result },
      { type: "message/start", message: notice },
      { type: "message/end", message: notice },
    ]);
    // The markup with attributes in a fixed order (an element patched in place lists them in the order they were set).
    const cardHtml = () =>
      chat.page.locator(".card").evaluateAll((els) => {
        const canon = (n: Node): string =>
          n instanceof Element
            ? `<${n.tagName} ${Array.from(n.attributes, (a) => `${a.name}=${a.value}`)
                .sort()
                .join(" ")}>${Array.from(n.childNodes, canon).join("")}</${n.tagName}>`
            : (n.textContent ?? "");
        return els.map(canon);
      });
    const live = await cardHtml();
    assert.equal(live.length, 1);
    await chat.snapshot(stateFromTranscript([user, call, result, notice]), { chatId: "chat-restored" });
    assert.deepEqual(await cardHtml(), live, "the restored card is the live card, byte for byte");
  });
});
