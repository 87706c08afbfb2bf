// Plan mode and the task list in the real webview bundle. The Plan mode switch is a toggle button
// that shows the host's mode. The task list: the panel above the composer while a run goes on
// (progress in its name, the item in progress, every control by keyboard with its own name),
// each tick, move and delete posted as the whole list and spoken; a todo call is one quiet line in
// the chat, not a card per update; a finished list steps aside once the run is over.
import * as assert from "node:assert/strict";
import type { TaskItem } from "../../src/shared/app-messages";
import { focusReaches, useChatPage } from "./harness";
import { heard, listen } from "./live-heard";
import { Script, stateOf } from "./script";

const LIST: TaskItem[] = [
  { id: "t1", text: "Read the parser", state: "done" },
  { id: "t2", text: "Write the failing test", state: "in_progress" },
  { id: "t3", text: "Fix the bug", state: "pending" },
];

function todoRun(items: TaskItem[], id: string): Script {
  return new Script()
    .assistant([{ type: "toolCall", id, name: "todo", arguments: { items: items.map(({ text, state }) => ({ text, state })) } }])
    .toolStart(id, "todo", { items })
    .toolEnd(id, "todo", { text: "Task list updated", details: { items } });
}

/** A run that ends with `plan` proposed by the call `call_plan`. */
function proposedPlan(plan: string) {
  return new Script()
    .start()
    .user("Plan the fix")
    .assistant([{ type: "toolCall", id: "call_plan", name: "propose_plan", arguments: { plan } }])
    .toolStart("call_plan", "propose_plan", { plan })
    .toolEnd("call_plan", "propose_plan", { text: "shown", details: { plan } })
    .end()
    .take();
}

describe("plan mode and the task list in the webview", function () {
  const page = useChatPage();

  it("the Plan mode switch: a toggle button by keyboard, posted and spoken; it shows the host's mode; the switch is a divider in the chat", async () => {
    const chat = page();
    await listen(chat);
    const toggle = chat.page.getByRole("button", { name: "Plan mode" });
    assert.equal(await toggle.getAttribute("aria-pressed"), "false");
    await chat.clearPosted();
    await toggle.focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [{ type: "chat/setMode", v: 1, mode: "plan" }]);
    assert.match((await heard(chat)).join("\n"), /polite: Plan mode: Pi reads and plans, and changes nothing/);
    assert.equal(await toggle.getAttribute("aria-pressed"), "false", "the button waits for the host's word");
    await chat.events(new Script().message({ role: "modeChanged", mode: "plan", timestamp: 2 }).take());
    await chat.events([{ type: "chat/mode", mode: "plan" }]);
    assert.equal(await toggle.getAttribute("aria-pressed"), "true");
    assert.match(
      (await chat.page.locator(".notice-info").last().textContent()) ?? "",
      /Plan mode: Pi reads and plans, and changes nothing until you approve a plan\./,
    );
    await chat.clearPosted();
    await chat.page.keyboard.press("Space");
    assert.deepEqual(await chat.posted(), [{ type: "chat/setMode", v: 1, mode: "act" }]);
  });

  it("a proposed plan: its card draws the Markdown; Approve and act and Edit in editor by keyboard while the chat may approve it, none after", async () => {
    const chat = page();
    await chat.events(proposedPlan("## Goal\nFix the parser.\n\n## Steps\n1. Write the test"));
    await chat.events([{ type: "chat/planOffer", toolCallId: "call_plan" }]);
    const card = chat.page.getByRole("region", { name: "Proposed plan" });
    assert.equal(await card.getByRole("heading", { name: "Goal" }).count(), 1, "the plan's Markdown is drawn");
    await chat.clearPosted();
    await card.getByRole("button", { name: "Edit in editor" }).focus();
    await chat.page.keyboard.press("Enter");
    await card.getByRole("button", { name: "Approve and act" }).focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [
      { type: "plan/openInEditor", v: 1, toolCallId: "call_plan" },
      { type: "plan/approve", v: 1, toolCallId: "call_plan" },
    ]);
    await chat.events([{ type: "chat/planOffer" }]);
    await card.getByRole("button", { name: "Approve and act" }).waitFor({ state: "detached" });
    assert.equal(await card.getByRole("heading", { name: "Goal" }).count(), 1, "the plan stays in the chat");
  });

  it("line comments on the plan by keyboard: a named button per line, a box with the focus, Enter keeps it and gives the focus back; Revise posts them, spoken", async () => {
    const chat = page();
    await listen(chat);
    await chat.events(proposedPlan("## Goal\nFix the parser.\n\n## Steps\n1. Write the test\n2. Rewrite the module"));
    await chat.events([{ type: "chat/planOffer", toolCallId: "call_plan" }]);
    const card = chat.page.getByRole("region", { name: "Proposed plan" });
    const open = card.getByRole("button", { name: "Comment on lines" });
    assert.equal(await open.getAttribute("aria-expanded"), "false");
    await open.focus();
    await chat.page.keyboard.press("Enter");
    assert.equal(await open.getAttribute("aria-expanded"), "true");
    const lines = card.getByRole("list", { name: "Plan lines" });
    assert.equal(await lines.getByRole("button").count(), 5, "one button per line with words, none for the blank line");
    assert.equal(await card.getByRole("button", { name: /^Revise/ }).count(), 0, "no Revise before a comment");

    // Line 6: its button by name, a box with the focus, typed, Enter keeps it and the focus is back on the line's button.
    await lines.getByRole("button", { name: "Comment on line 6: 2. Rewrite the module" }).focus();
    await chat.page.keyboard.press("Enter");
    const box = card.getByRole("textbox", { name: "Comment on line 6" });
    assert.equal(await focusReaches(box), true, "the box has the focus");
    await chat.page.keyboard.type("Only the tokenizer.");
    await chat.page.keyboard.press("Enter");
    const edited = lines.getByRole("button", { name: "Edit the comment on line 6: 2. Rewrite the module" });
    assert.equal(await focusReaches(edited), true, "the focus is back on the line");
    assert.match((await lines.textContent()) ?? "", /Only the tokenizer\./, "the comment shows under its line");

    // Line 2, then Revise.
    await lines.getByRole("button", { name: "Comment on line 2: Fix the parser." }).focus();
    await chat.page.keyboard.press("Space");
    await chat.page.keyboard.type("Name the file.");
    await chat.page.keyboard.press("Escape");
    await chat.clearPosted();
    await card.getByRole("button", { name: "Revise (2 comments)" }).focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [
      {
        type: "plan/revise",
        v: 1,
        toolCallId: "call_plan",
        comments: [
          { line: 6, comment: "Only the tokenizer." },
          { line: 2, comment: "Name the file." },
        ],
      },
    ]);
    assert.match((await heard(chat)).join("\n"), /polite: Sent 2 comments: Pi revises the plan/);

    // The host's note: the model gets each comment with its line; the chat shows them, marked so.
    await chat.events(
      new Script()
        .message({
          role: "planComments",
          toolCallId: "call_plan",
          comments: [{ line: 2, lineText: "Fix the parser.", comment: "Name the file." }],
          timestamp: 9,
        })
        .take(),
    );
    await chat.events([{ type: "chat/planOffer" }]);
    const note = chat.page.getByRole("group", { name: "Pi gets this as each comment with the plan line it is on" });
    assert.match((await note.textContent()) ?? "", /You asked Pi to revise the plan: 1 comment on its lines\./);
    await card.getByRole("button", { name: "Comment on lines" }).waitFor({ state: "detached" });
  });

  it("a comment being written on the plan is still there when the card scrolls out of a long chat and back", async () => {
    const chat = page();
    // A long chat whose first turn proposed the plan, which the chat may still approve.
    const later = new Script().start();
    for (let turn = 0; turn < 80; turn++) later.user(`Question ${turn}`).assistant([{ type: "text", text: `Answer ${turn}.\n\n${"Words. ".repeat(40)}` }]);
    const plan = "## Goal\nFix the parser.\n\n## Steps\n1. Write the test\n2. Rewrite the module";
    await chat.snapshot(stateOf([...proposedPlan(plan), ...later.end().take()]), { chatId: "long-plan", title: "Long plan" });
    await chat.events([{ type: "chat/planOffer", toolCallId: "call_plan" }]);
    const card = chat.page.getByRole("region", { name: "Proposed plan" });
    // Scrolls a view's height at a time (two frames each, as a user's wheel) until the card is drawn, or not.
    const scrollUntil = (toTop: boolean, drawn: boolean) =>
      chat.page.evaluate(
        async ([up, wanted]) => {
          const box = document.querySelector<HTMLElement>(".scroller")!;
          const frame = () => new Promise<void>((done) => requestAnimationFrame(() => done()));
          const isDrawn = () => document.querySelector('[data-item="call_plan"]') !== null;
          for (let step = 0; step < 1000 && isDrawn() !== wanted; step++) {
            box.scrollTop += (up ? -1 : 1) * box.clientHeight;
            await frame();
            await frame();
          }
          return isDrawn() === wanted;
        },
        [toTop, drawn] as const,
      );
    assert.equal(await scrollUntil(true, true), true, "the plan's card, up the chat");
    await card.getByRole("button", { name: "Comment on lines" }).click();
    await card.getByRole("button", { name: "Comment on line 6: 2. Rewrite the module" }).click();
    assert.equal(await focusReaches(card.getByRole("textbox", { name: "Comment on line 6" })), true);
    await chat.page.keyboard.type("Only the tokenizer.");
    // Into the message box (a focused row stays drawn), then to the end of the chat, where the card
    // is no longer drawn, and back.
    await chat.page.getByRole("textbox", { name: "Message to Pi" }).focus();
    assert.equal(await scrollUntil(false, false), true, "down the chat, the card is no longer drawn");
    assert.equal(await scrollUntil(true, true), true, "and back up");
    assert.equal(await card.getByRole("list", { name: "Plan lines" }).count(), 1, "the plan's lines are still open");
    assert.match((await card.getByRole("list", { name: "Plan lines" }).textContent()) ?? "", /Only the tokenizer\./, "the comment is still there");
    await chat.clearPosted();
    await card.getByRole("button", { name: "Revise (1 comment)" }).click();
    assert.deepEqual(await chat.postedOf("plan/revise"), [
      { type: "plan/revise", v: 1, toolCallId: "call_plan", comments: [{ line: 6, comment: "Only the tokenizer." }] },
    ]);
  });

  it("the panel: its progress and items by name, tick, move and delete by keyboard, each posted whole and spoken", async () => {
    const chat = page();
    await listen(chat);
    await chat.events(new Script().start().user("Fix the parser bug").take());
    await chat.events(todoRun(LIST, "call_t1").take());
    await chat.events([{ type: "tasks/list", items: LIST }]);
    const panel = chat.page.getByRole("region", { name: "Task list, 1 of 3 done" });
    await panel.waitFor();
    const head = panel.getByRole("button", { name: /Tasks · 1 of 3 done/ });
    assert.equal(await head.getAttribute("aria-expanded"), "true");
    const tick = panel.getByRole("checkbox", { name: "Fix the bug" });
    assert.equal(await tick.isChecked(), false);
    assert.equal(await panel.getByRole("checkbox", { name: "Read the parser" }).isChecked(), true);
    assert.match((await panel.locator('[data-task="t2"]').textContent()) ?? "", /in progress/);

    // Space on the checkbox ticks it: the whole list goes to the host, and it is said.
    await chat.clearPosted();
    await tick.focus();
    await chat.page.keyboard.press("Space");
    assert.deepEqual(await chat.posted(), [
      {
        type: "tasks/edit",
        v: 1,
        items: [
          { id: "t1", state: "done" },
          { id: "t2", state: "in_progress" },
          { id: "t3", state: "done" },
        ],
      },
    ]);
    assert.match((await heard(chat)).join("\n"), /polite: "Fix the bug" marked done/);

    // Tab reaches Move up; Enter moves the item above the one before it.
    await chat.clearPosted();
    const up = panel.getByRole("button", { name: 'Move "Fix the bug" up' });
    await up.focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual((await chat.posted())[0], {
      type: "tasks/edit",
      v: 1,
      items: [
        { id: "t1", state: "done" },
        { id: "t3", state: "pending" },
        { id: "t2", state: "in_progress" },
      ],
    });
    assert.equal(await panel.getByRole("button", { name: 'Move "Read the parser" up' }).isDisabled(), true, "the first item cannot move up");

    await chat.clearPosted();
    await panel.getByRole("button", { name: 'Delete "Read the parser"' }).focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual((await chat.posted())[0], {
      type: "tasks/edit",
      v: 1,
      items: [
        { id: "t2", state: "in_progress" },
        { id: "t3", state: "pending" },
      ],
    });
    assert.match((await heard(chat)).join("\n"), /"Read the parser" deleted from the task list/);

    // What the panel shows is the host's list: it changes only with tasks/list.
    await chat.events([{ type: "tasks/list", items: [LIST[1]!, LIST[2]!] }]);
    await chat.page.getByRole("region", { name: "Task list, 0 of 2 done" }).waitFor();

    // Collapsed, the head still says what is in progress.
    await chat.page.getByRole("button", { name: /Tasks · 0 of 2 done/ }).click();
    assert.equal(await chat.page.locator(".task-panel-head").getAttribute("aria-expanded"), "false");
    assert.match((await chat.page.locator(".task-panel-head").textContent()) ?? "", /0 of 2 done · Write the failing test/);
  });

  it("a todo call is one line in the chat with the list one click away; two calls, two lines, one panel", async () => {
    const chat = page();
    await chat.events(new Script().start().user("Plan it").take());
    await chat.events(todoRun(LIST, "call_a").take());
    const later = LIST.map((t) => ({ ...t, state: "done" as const }));
    await chat.events(todoRun(later, "call_b").take());
    await chat.events([{ type: "tasks/list", items: later }]);
    const lines = chat.page.locator(".task-line");
    assert.equal(await lines.count(), 2);
    assert.match((await lines.first().locator("summary").textContent()) ?? "", /Task list: 1 of 3 done · now: Write the failing test/);
    assert.match((await lines.last().locator("summary").textContent()) ?? "", /Task list: 3 of 3 done/);
    assert.equal(await chat.page.locator(".task-panel").count(), 1, "one panel, updated in place");
    // The run ends with every item done: the panel steps aside; the lines stay.
    await chat.events(new Script().end().take());
    await chat.page.locator(".task-panel").waitFor({ state: "detached" });
    assert.equal(await lines.count(), 2);
  });
});
