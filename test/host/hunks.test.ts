// Taking part of an edit in the real extension host, through the real pi-ai adapter and the
// webview protocol: a three-hunk edit with hunk 2 rejected writes exactly hunks 1 and 3 (saved,
// one undo step), and the next request's tool result tells the model hunk 2 was rejected and
// why. The decision is untrusted input: hunk lists out of range, repeated, for another call, with
// "Always allow", or after the edit was decided are dropped, and the card keeps waiting.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { WebviewMessage } from "../../src/shared/protocol";
import { diskText, toolCard, useChatView, waitFor, workspaceUri } from "./helpers";

const ORIGINAL = `${Array.from({ length: 40 }, (_, i) => `setting ${i + 1} = ${i + 1}`).join("\n")}\n`;
/** Three changes far apart: three hunks. The first adds lines, so the later hunks move in the proposal. */
const PROPOSED = ORIGINAL.replace("setting 5 = 5\n", "setting 5 = 50\nsetting 5a = 51\nsetting 5b = 52\n")
  .replace("setting 20 = 20\n", "setting 20 = 200\n")
  .replace("setting 35 = 35\n", "");
/** Hunks 1 and 3 only: what the user accepted. */
const HUNKS_1_AND_3 = ORIGINAL.replace("setting 5 = 5\n", "setting 5 = 50\nsetting 5a = 51\nsetting 5b = 52\n").replace("setting 35 = 35\n", "");

function toolResultText(body: { messages: { role: string; content?: unknown }[] }): string {
  return body.messages
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

/** The titles of the lenses a document shows, top to bottom. */
async function lensTitles(uri: vscode.Uri): Promise<string[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri)) ?? [];
  return lenses.filter((l) => l.command?.command.startsWith("piChat.")).map((l) => l.command?.title ?? "");
}

describe("part of an edit: hunks accepted and rejected before the write", function () {
  this.timeout(120_000);
  const view = useChatView();
  const fileUri = () => workspaceUri("src", "hunks.txt");

  beforeEach(async () => {
    await vscode.workspace.fs.writeFile(fileUri(), new TextEncoder().encode(ORIGINAL));
    await vscode.commands.executeCommand("piChat.newChat");
  });

  after(async () => {
    await vscode.workspace.fs.delete(fileUri()).then(undefined, () => undefined);
  });

  /** The model proposes the three-hunk edit under `id`; the tool result of the request after it lands in `toolResult`. */
  function proposeThreeHunks(id: string): { toolResult: string } {
    const { server, api } = view();
    const next = { toolResult: "" };
    server.push(
      () => ({ toolCalls: [{ id, name: "edit_file", arguments: { path: "src/hunks.txt", oldText: ORIGINAL, newText: PROPOSED } }] }),
      (body) => {
        next.toolResult = toolResultText(body);
        return { text: "Understood." };
      },
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Change the settings." });
    return next;
  }

  it("a three-hunk edit with hunk 2 rejected writes hunks 1 and 3 only, and the next request's tool result says hunk 2 was rejected", async () => {
    const { server, api } = view();
    const next = proposeThreeHunks("call_hunks");
    const card = await waitFor("the approval request", () =>
      toolCard(api, "call_hunks")?.approval?.state === "pending" ? toolCard(api, "call_hunks") : undefined,
    );
    assert.equal(card.approval?.diff?.kind === "hunks" ? card.approval.diff.hunks.length : 0, 3, "the card shows three hunks");

    // Hostile or stale decisions: each is handled (receive resolves) and dropped; the card still waits, the file is untouched.
    const attacks: unknown[] = [
      { type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allow", rejectedHunks: [3] },
      { type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allow", rejectedHunks: [1, 1] },
      { type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allow", rejectedHunks: [-1] },
      { type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allow", rejectedHunks: [0.5] },
      { type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allowAlways", rejectedHunks: [1] },
      { type: "approval/decide", v: 1, toolCallId: "call_other", decision: "allow", rejectedHunks: [1] },
      { type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allowForChat", rejectedHunks: [0, 1, 2, 3] },
    ];
    for (const attack of attacks) {
      await api.view.receive(attack);
      assert.equal(toolCard(api, "call_hunks")?.approval?.state, "pending", `still waiting after ${JSON.stringify(attack)}`);
      assert.equal(await diskText(fileUri()), ORIGINAL, `nothing written after ${JSON.stringify(attack)}`);
    }
    assert.equal(api.screen.currentSession.allowsEditsForChat, false, "no attack turned on Allow edits for this chat");

    // Hunk 2 rejected in the file's editor (Alt+N's command, the cursor on the hunk): the card shows it.
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(fileUri()));
    editor.selection = new vscode.Selection(19, 0, 19, 0); // line 20: hunk 2
    await vscode.commands.executeCommand("piChat.rejectHunk");
    assert.deepEqual(toolCard(api, "call_hunks")?.approval?.rejectedHunks, [1], "the card shows the editor's choice");
    assert.deepEqual(await lensTitles(fileUri()), [
      "Pi Chat: Allow 2 of 3 hunks",
      "Deny",
      "✓ Accept hunk 1 of 3",
      "Reject hunk 1",
      "Accept hunk 2 of 3",
      "✗ Reject hunk 2",
      "✓ Accept hunk 3 of 3",
      "Reject hunk 3",
    ]);
    // The card's choices reach the editor: hunk 1 rejected, then accepted again.
    await api.view.receive({ type: "approval/hunk", v: 1, toolCallId: "call_hunks", hunk: 0, accept: false });
    assert.ok((await lensTitles(fileUri())).includes("✗ Reject hunk 1"), "the editor shows the card's choice");
    await api.view.receive({ type: "approval/hunk", v: 1, toolCallId: "call_hunks", hunk: 0, accept: true });
    assert.deepEqual(toolCard(api, "call_hunks")?.approval?.rejectedHunks, [1]);
    // A choice for a hunk the edit has not, or another call: dropped.
    await api.view.receive({ type: "approval/hunk", v: 1, toolCallId: "call_hunks", hunk: 3, accept: false });
    await api.view.receive({ type: "approval/hunk", v: 1, toolCallId: "call_other", hunk: 0, accept: false });
    assert.deepEqual(toolCard(api, "call_hunks")?.approval?.rejectedHunks, [1]);
    // A decision that does not match what card and editor show (a stale view) is dropped.
    for (const stale of [undefined, [0], [1, 2]]) {
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allow", ...(stale ? { rejectedHunks: stale } : {}) });
      assert.equal(toolCard(api, "call_hunks")?.approval?.state, "pending", `still waiting after a decision rejecting ${JSON.stringify(stale ?? [])}`);
    }
    assert.equal(await diskText(fileUri()), ORIGINAL);

    const decision: WebviewMessage = {
      type: "approval/decide",
      v: 1,
      toolCallId: "call_hunks",
      decision: "allow",
      rejectedHunks: [1],
      reason: "keep setting 20",
    };
    await api.view.receive(decision);
    await api.screen.currentSession.waitForIdle();

    // Exactly what was approved is on disk, saved.
    assert.equal(await diskText(fileUri()), HUNKS_1_AND_3);
    const doc = await vscode.workspace.openTextDocument(fileUri());
    assert.equal(doc.isDirty, false, "the partial edit was saved");

    // The model's next request: its tool result names the hunk that was not written, and why.
    assert.match(next.toolResult, /hunks 1 and 3 of 3 written; hunk 2 rejected and NOT written/);
    assert.match(next.toolResult, /keep setting 20/);
    assert.match(next.toolResult, /\+setting 20 = 200/, "the rejected hunk is shown as proposed");
    const notice = api.screen.currentSession.messages.find((m) => m.role === "approvalNotice" && m.toolCallId === "call_hunks");
    assert.deepEqual(notice && "rejectedHunks" in notice ? notice.rejectedHunks : undefined, [1]);
    assert.equal(server.pending(), 0, "the model was asked again after the partial edit");

    // A stale decision (the edit was decided) changes nothing.
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_hunks", decision: "allow", rejectedHunks: [0] });
    assert.equal(await diskText(fileUri()), HUNKS_1_AND_3);

    // One undo step takes the whole partial edit back.
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand("undo");
    assert.equal(doc.getText(), ORIGINAL);
    await doc.save();
  });

  it("a hunk edited on the card before accepting is written as edited, and the model is told its final content", async () => {
    const { api } = view();
    const next = proposeThreeHunks("call_edited");
    await waitFor("the approval request", () => toolCard(api, "call_edited")?.approval?.state === "pending");
    // Hunk 2's new side (3 lines of context each way), as the user rewrote it.
    const mine = "setting 17 = 17\nsetting 18 = 18\nsetting 19 = 19\nsetting 20 = 20 # kept by me\nsetting 21 = 21\nsetting 22 = 22\nsetting 23 = 23";
    await api.view.receive({ type: "approval/editHunk", v: 1, toolCallId: "call_edited", hunk: 1, text: mine });
    assert.deepEqual(toolCard(api, "call_edited")?.approval?.editedHunks, [{ hunk: 1, text: mine }], "the card shows the host's record");
    // Out of range, another call: dropped. A decision not naming the edited hunk (a stale view): dropped.
    await api.view.receive({ type: "approval/editHunk", v: 1, toolCallId: "call_edited", hunk: 3, text: "x" });
    await api.view.receive({ type: "approval/editHunk", v: 1, toolCallId: "call_other", hunk: 0, text: "x" });
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_edited", decision: "allow" });
    assert.equal(toolCard(api, "call_edited")?.approval?.state, "pending");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_edited", decision: "allow", editedHunks: [1] });
    await api.screen.currentSession.waitForIdle();
    assert.equal(await diskText(fileUri()), PROPOSED.replace("setting 20 = 200\n", "setting 20 = 20 # kept by me\n"));
    assert.match(next.toolResult, /The user edited hunk 2 before it was written/);
    assert.match(next.toolResult, /setting 20 = 20 # kept by me/);
    assert.equal(toolCard(api, "call_edited")?.approval?.state, "allowed");
  });

  it("deciding in the editor: reject hunk 3 in the proposal's diff editor, Allow from the lens writes hunks 1 and 2", async () => {
    const { api } = view();
    const next = proposeThreeHunks("call_lens");
    await waitFor("the approval request", () => toolCard(api, "call_lens")?.approval?.state === "pending");
    // The proposal's side of the diff editor shows the same lenses, at the new lines.
    const proposal = await waitFor("the proposal document", () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme === "pi-chat-proposal" && d.uri.query.includes("call_lens")),
    );
    const reject3 = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", proposal.uri))?.find(
      (l) => l.command?.title === "Reject hunk 3",
    );
    assert.ok(reject3?.command, "a Reject lens on hunk 3 of the proposal");
    assert.ok(proposal.lineAt(reject3.range.start.line).text.startsWith("setting 36"), "at hunk 3's first changed line in the proposal");
    await vscode.commands.executeCommand(reject3.command.command, ...(reject3.command.arguments ?? []));
    assert.deepEqual(toolCard(api, "call_lens")?.approval?.rejectedHunks, [2], "the card shows it");
    const allow = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", proposal.uri))?.find((l) =>
      l.command?.title.startsWith("Pi Chat: Allow"),
    );
    assert.equal(allow?.command?.title, "Pi Chat: Allow 2 of 3 hunks");
    await vscode.commands.executeCommand(allow!.command!.command, ...(allow!.command!.arguments ?? []));
    await api.screen.currentSession.waitForIdle();
    assert.equal(await diskText(fileUri()), PROPOSED.replace("setting 34 = 34\nsetting 36", "setting 34 = 34\nsetting 35 = 35\nsetting 36"));
    assert.match(next.toolResult, /hunks 1 and 2 of 3 written; hunk 3 rejected and NOT written/);
    assert.equal(toolCard(api, "call_lens")?.approval?.state, "allowed");
  });
});
