// Plan mode and the task list through the real extension host and pi-ai's openai-completions
// adapter. Plan mode: the request declares only reading and discovery tools, the model is told the
// mode, and an edit or a command the model calls anyway is refused with the reason and no card;
// act mode brings the tools back. The task list: the model writes it with todo; the user ticks and
// deletes items from the view (tasks/edit) and the model reads exactly that with its next request;
// an edit naming items the list does not have is dropped; the list comes back with the chat, and
// a compaction keeps it beside the summary.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { HostMessage } from "../../src/shared/protocol";
import type { WireMessage } from "../support/openai-server";
import { useChatView } from "./helpers";

function textOf(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

const PLAN = [
  { text: "Read the parser", state: "in_progress" },
  { text: "Write the failing test", state: "pending" },
  { text: "Rewrite the whole module", state: "pending" },
];

/** The plan every plan test starts from: lines 2 and 6 are the ones commented on. */
const PLAN_TEXT = "## Goal\nFix the parser.\n\n## Steps\n1. Write the test\n2. Rewrite the module";

/** Plan mode, a prompt, and the model's answer: PLAN_TEXT proposed by the call `call_plan`. */
async function proposePlan({ server, api }: ReturnType<ReturnType<typeof useChatView>>) {
  await api.view.receive({ type: "chat/setMode", v: 1, mode: "plan" });
  server.push(() => ({ toolCalls: [{ id: "call_plan", name: "propose_plan", arguments: { plan: PLAN_TEXT } }] }));
  await api.view.receive({ type: "chat/send", v: 1, text: "Plan the fix" });
  return api.screen.currentSession;
}

describe("plan mode and the task list in a chat", function () {
  this.timeout(120_000);
  const view = useChatView();

  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  it("plan mode: only reading tools are declared; an edit and a command the model calls anyway are refused without a card; act mode brings them back", async () => {
    const { server, api } = view();
    const declared = (body: { tools?: { function: { name: string } }[] }) => (body.tools ?? []).map((t) => t.function.name).sort();
    await api.view.receive({ type: "chat/setMode", v: 1, mode: "plan" });
    const session = api.screen.currentSession;
    assert.equal(session.mode, "plan");
    assert.equal(session.viewState.mode, "plan", "the composer's switch shows it");
    const posted = api.view.posted as HostMessage[];
    const before = posted.length;
    server.push((body) => {
      assert.deepEqual(declared(body), ["find_files", "list_files", "propose_plan", "read_file", "search", "todo"]);
      assert.ok(
        body.messages.some((m) => textOf(m).includes("The user switched to plan mode")),
        "the model is told the mode",
      );
      return {
        toolCalls: [
          { id: "call_edit", name: "edit_file", arguments: { path: "README.md", oldText: "a", newText: "b" } },
          { id: "call_run", name: "run_command", arguments: { command: "touch made-in-plan-mode" } },
        ],
      };
    });
    server.push((body) => {
      const results = body.messages.filter((m) => m.role === "tool").map(textOf);
      assert.equal(results.length, 2);
      for (const [i, name] of ["edit_file", "run_command"].entries())
        assert.match(results[i]!, new RegExp(`plan mode: ${name} was not run, and nothing was changed`));
      return { text: "Here is the plan." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "Change the README" });
    const asked = posted.slice(before).filter((m) => m.type === "chat/event" && m.event.type === "approval/request");
    assert.deepEqual(asked, [], "no card asked about a call plan mode refused");
    assert.ok(!session.messages.some((m) => m.role === "approvalNotice"), "no decision to record");

    // Act mode: the tools are back, and the model is told.
    await vscode.commands.executeCommand("piChat.togglePlanMode");
    assert.equal(session.mode, "act");
    server.push((body) => {
      assert.deepEqual(declared(body), ["command_output", "edit_file", "find_files", "list_files", "read_file", "run_command", "search", "todo"]);
      assert.match(textOf(body.messages.filter((m) => m.role === "user").at(-2)), /The user switched to act mode/);
      return { text: "Acting." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "Go ahead" });
    assert.equal(server.pending(), 0);
  });

  it("a proposed plan ends the run; edited in its editor and approved, act mode starts with the edited text; a second approval is ignored", async () => {
    const { server, api } = view();
    const session = await proposePlan(view());
    assert.equal(server.pending(), 0, "the run ended with the plan: no request after it");
    assert.equal(session.viewState.planOffer, "call_plan", "its card offers Approve and act");

    // Edit in editor: an untitled Markdown document with the plan; the user changes step 2.
    await api.view.receive({ type: "plan/openInEditor", v: 1, toolCallId: "call_plan" });
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc && doc.languageId === "markdown" && doc.isUntitled && doc.getText() === PLAN_TEXT);
    const edit = new vscode.WorkspaceEdit();
    const at = doc.getText().indexOf("Rewrite the module");
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(at), doc.positionAt(at + "Rewrite the module".length)), "Fix only the tokenizer");
    assert.ok(await vscode.workspace.applyEdit(edit));

    server.push((body) => {
      const names = (body.tools ?? []).map((t) => t.function.name);
      assert.ok(names.includes("edit_file"), "act mode: the edit tool is back");
      const told = body.messages.map(textOf);
      assert.ok(told.some((t) => t.includes("The user switched to act mode")));
      const approved = told.find((t) => t.includes("The user approved the plan"));
      assert.ok(approved, "the approved plan is sent");
      assert.match(approved, /after editing it/);
      assert.match(approved, /2\. Fix only the tokenizer/);
      assert.doesNotMatch(approved, /Rewrite the module/, "the model gets the user's version");
      return { text: "Starting with the test." };
    });
    await api.view.receive({ type: "plan/approve", v: 1, toolCallId: "call_plan" });
    assert.equal(session.mode, "act");
    assert.equal(session.viewState.planOffer, undefined, "answered: no more Approve");
    const count = session.messages.length;
    await api.view.receive({ type: "plan/approve", v: 1, toolCallId: "call_plan" });
    assert.equal(session.messages.length, count, "a stale Approve does nothing");
    assert.equal(server.pending(), 0);
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  it("Revise with line comments: the model's next request has each comment with the plan line it is on; plan mode stays; a stale or empty Revise does nothing", async () => {
    const { server, api } = view();
    const session = await proposePlan(view());
    assert.equal(session.viewState.planOffer, "call_plan");

    // Comments on nothing the plan has (line 99, an empty comment, another plan) send nothing.
    const count = session.messages.length;
    await api.view.receive({ type: "plan/revise", v: 1, toolCallId: "call_plan", comments: [{ line: 99, comment: "No such line" }] });
    await api.view.receive({ type: "plan/revise", v: 1, toolCallId: "call_other", comments: [{ line: 6, comment: "Another plan" }] });
    assert.equal(session.messages.length, count, "nothing was sent");

    const revised = "## Goal\nFix the parser.\n\n## Steps\n1. Write the test\n2. Fix only the tokenizer";
    let told = "";
    server.push((body) => {
      const names = (body.tools ?? []).map((t) => t.function.name);
      assert.ok(!names.includes("edit_file"), "still plan mode: no edit tool");
      told = body.messages.map(textOf).find((t) => t.includes("The user commented on your plan")) ?? "";
      return { toolCalls: [{ id: "call_plan2", name: "propose_plan", arguments: { plan: revised } }] };
    });
    await api.view.receive({
      type: "plan/revise",
      v: 1,
      toolCallId: "call_plan",
      comments: [
        { line: 6, comment: "Only the tokenizer, not the whole module." },
        { line: 2, comment: "Name the file." },
      ],
    });
    assert.match(told, /Line 2: Fix the parser\.\nComment: Name the file\./, "each comment with its line's text, in line order");
    assert.match(told, /Line 6: 2\. Rewrite the module\nComment: Only the tokenizer, not the whole module\./);
    assert.equal(session.mode, "plan");
    assert.equal(session.viewState.planOffer, "call_plan2", "the revised plan is the one to approve now");
    const note = session.messages.find((m) => m.role === "planComments");
    assert.deepEqual(note && "comments" in note ? note.comments.map((c) => c.line) : [], [2, 6]);
    assert.equal(server.pending(), 0);
  });

  it("the model writes it, the user ticks and deletes items, the model is told exactly that; the list comes back with the chat and survives a compaction", async () => {
    const { server, api } = view();
    server.push(() => ({ toolCalls: [{ id: "call_todo1", name: "todo", arguments: { items: PLAN } }] }));
    server.push((body) => {
      const result = body.messages.filter((m) => m.role === "tool").pop();
      assert.match(textOf(result), /Task list updated \(0 of 3 done\):\n1\. \[~\] Read the parser \(in progress\)/);
      return { text: "I will start with the parser." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "Fix the parser bug" });
    const session = api.screen.currentSession;
    const chatId = session.id;
    /** The list the view of the chat on screen shows. */
    const shown = () => api.screen.currentSession.viewState.tasks?.map((t) => `${t.id} ${t.state}`);
    assert.deepEqual(
      session.viewState.tasks?.map((t) => `${t.id} ${t.state} ${t.text}`),
      ["t1 in_progress Read the parser", "t2 pending Write the failing test", "t3 pending Rewrite the whole module"],
    );

    // A stale or hostile view: ids the list does not have, or one id twice, change nothing.
    const before = session.messages.length;
    await api.view.receive({ type: "tasks/edit", v: 1, items: [{ id: "t9", state: "done" }] });
    await api.view.receive({
      type: "tasks/edit",
      v: 1,
      items: [
        { id: "t1", state: "done" },
        { id: "t1", state: "done" },
      ],
    });
    assert.equal(session.messages.length, before, "nothing saved for an edit the list cannot take");

    // The user ticks the first item and deletes the third.
    await api.view.receive({
      type: "tasks/edit",
      v: 1,
      items: [
        { id: "t1", state: "done" },
        { id: "t2", state: "pending" },
      ],
    });
    const edited = session.messages.at(-1);
    assert.equal(edited?.role, "taskListEdited");
    assert.deepEqual(shown(), ["t1 done", "t2 pending"]);

    server.push((body) => {
      const told = body.messages.filter((m) => m.role === "user").map(textOf);
      const fact = told.find((t) => t.includes("The user changed the task list"));
      assert.ok(fact, "the model is told of the user's change");
      assert.match(fact, /marked "Read the parser" done; deleted "Rewrite the whole module"\./);
      assert.match(fact, /<task-list>\n1\. \[x\] Read the parser \(done\)\n2\. \[ \] Write the failing test \(pending\)\n<\/task-list>/);
      assert.equal(textOf(body.messages.at(-1)), "Go on", "the user's words come after the change");
      return { text: "Writing the test next." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "Go on" });

    // Back in the chat after another one: the list is there, from the transcript alone.
    await vscode.commands.executeCommand("piChat.newChat");
    assert.equal(shown(), undefined, "a new chat has no task list");
    await api.view.receive({ type: "chat/switch", v: 1, chatId });
    assert.deepEqual(shown(), ["t1 done", "t2 pending"]);

    // A compaction summarizes the todo call away; the list travels verbatim beside the summary.
    server.push(() => ({ text: "## Goal\nFix the parser bug." }));
    assert.equal(await vscode.commands.executeCommand("piChat.compact", { instructions: "" }), "done");
    server.push((body) => {
      const summary = body.messages.map(textOf).find((t) => t.includes("compacted into the summary below"));
      assert.ok(summary, "the summary is sent");
      assert.match(
        summary,
        /<task-list>\nThe current task list:\n1\. \[x\] Read the parser \(done\)\n2\. \[ \] Write the failing test \(pending\)\n<\/task-list>/,
      );
      return { text: "Still on the test." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "Where are we?" });
    assert.equal(server.pending(), 0);
  });
});
