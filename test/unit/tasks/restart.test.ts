// The task list, the mode and the plan on offer come back after VS Code restarts: another chat
// service over the same storage reads them from the transcript alone (nothing of them is kept
// anywhere else), and the model's next request carries the same list and mode as before.
import assert from "node:assert/strict";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel, reply, textOf, type ScriptedModel } from "../../support/scripted-model";

const ITEMS = [
  { text: "Read the parser", state: "in_progress" },
  { text: "Write the failing test", state: "pending" },
  { text: "Fix the bug", state: "pending" },
];

describe("the task list and the mode after a restart", () => {
  let model: ScriptedModel;
  let w: ChatWorld | undefined;

  beforeEach(() => {
    model = createScriptedModel();
  });
  afterEach(async () => {
    await w?.cleanup();
    w = undefined;
  });

  it("the user's ticks, plan mode and the plan on offer come back from the transcript; the model reads the same list and mode", async () => {
    // The tools each request declared, as the provider would get them.
    const declared: string[][] = [];
    w = chatWorld({
      resolveModel: async () => ({
        ...model.binding,
        streamFn: (m, context, options) => {
          // pi-agent-core declares tools in the transcript's system messages (toolsAdded/toolsRemoved).
          const names = new Set<string>();
          for (const message of context.messages) {
            if (message.role !== "system") continue;
            for (const t of message.toolsAdded ?? []) names.add(t.name);
            for (const t of message.toolsRemoved ?? []) names.delete(t.name);
          }
          declared.push([...names].sort());
          return model.binding.streamFn(m, context, options);
        },
      }),
    });
    const session = w.service.newChat();
    model.push(reply.tool("todo", { items: ITEMS }, "call_todo"), reply.text("Starting with the parser."));
    await session.prompt("Fix the parser bug");
    const ids = session.viewState.tasks?.map((t) => t.id) ?? [];
    assert.equal(ids.length, 3);
    assert.ok(
      await session.editTaskList([
        { id: ids[0]!, state: "done" },
        { id: ids[1]!, state: "pending" },
      ]),
    );
    await session.setMode("plan");
    model.push(reply.tool("propose_plan", { plan: "## Goal\nFix the parser.\n## Steps\n1. Write the test" }, "call_plan"));
    await session.prompt("Plan the rest");
    const before = { tasks: session.viewState.tasks, mode: session.viewState.mode, planOffer: session.viewState.planOffer };
    assert.equal(before.mode, "plan");
    assert.equal(before.planOffer, "call_plan");

    const reopened = await w.reopen().open(session.id);
    assert.ok(reopened.ok);
    const again = reopened.session;
    assert.deepEqual(again.viewState.tasks, before.tasks, "the list as the user left it");
    assert.equal(again.viewState.mode, "plan");
    assert.equal(again.viewState.planOffer, "call_plan", "the plan may still be approved");

    model.push(reply.text("Still planning."));
    await again.prompt("Where are we?");
    const sent = model.requests.at(-1)!.map(textOf).join("\n");
    assert.match(sent, /1\. \[x\] Read the parser \(done\)\n2\. \[ \] Write the failing test \(pending\)/, "the list as the user left it");
    assert.doesNotMatch(sent, /Fix the bug \(pending\)\n<\/task-list>/, "the deleted item is not back");
    const tools = declared.at(-1) ?? [];
    assert.ok(!tools.includes("edit_file") && tools.includes("read_file"), `plan mode's tools after the restart: ${tools.join(", ")}`);
  });
});
