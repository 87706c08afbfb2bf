// The edit gate on its own: a real temp workspace, a recording approver, a tool call, no agent.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AfterToolCallContext, BeforeToolCallContext } from "@earendil-works/pi-agent-core";
import { EditGate, type ApprovalMode, type EditApprovalRequest, type EditDecision } from "../../../src/core/permissions";
import type { ApprovalNoticeMessage } from "../../../src/core/messages";
import { applyEdit, createNodeWorkspaceFs, type EditProposal } from "../../../src/core/tools";
import type { ChatEvent } from "../../../src/shared/protocol";
import { tempDir } from "../../support/temp";

const ENV_SECRET = "sk-live-0a1b2c3d4e5f-very-secret";

interface GateWorld {
  root: string;
  gate: EditGate;
  requests: EditApprovalRequest[];
  events: ChatEvent[];
  notices: ApprovalNoticeMessage[];
  proposals: Map<string, EditProposal>;
  write(rel: string, text: string): void;
  read(rel: string): string;
  call(path: string, oldText: string, newText: string, id?: string): ReturnType<EditGate["beforeToolCall"]>;
  cleanup(): void;
}

function gateWorld(settings: { mode?: ApprovalMode; trusted?: boolean; decide?: EditDecision; protectedFiles?: string[] } = {}): GateWorld {
  const dir = tempDir("gate");
  const requests: EditApprovalRequest[] = [];
  const events: ChatEvent[] = [];
  const notices: ApprovalNoticeMessage[] = [];
  const proposals = new Map<string, EditProposal>();
  const gate = new EditGate({
    chatId: "chat-1",
    fs: createNodeWorkspaceFs(dir.path),
    workspaceRoot: dir.path,
    approver: async (request) => {
      requests.push(request);
      return settings.decide ?? { decision: "allow" };
    },
    approvalMode: () => settings.mode ?? "ask",
    workspaceTrusted: () => settings.trusted ?? true,
    ...(settings.protectedFiles ? { protectedFiles: () => settings.protectedFiles! } : {}),
    proposals,
    emit: (event) => events.push(event),
    record: (notice) => notices.push(notice),
  });
  let n = 0;
  const w: GateWorld = {
    root: dir.path,
    gate,
    requests,
    events,
    notices,
    proposals,
    write(rel, text) {
      mkdirSync(dirname(join(dir.path, rel)), { recursive: true });
      writeFileSync(join(dir.path, rel), text);
    },
    read: (rel) => readFileSync(join(dir.path, rel), "utf8"),
    call(path, oldText, newText, id = `call_${++n}`) {
      const args = { path, oldText, newText };
      const context = { toolCall: { type: "toolCall", id, name: "edit_file", arguments: args }, args } as unknown as BeforeToolCallContext;
      return gate.beforeToolCall(context, undefined);
    },
    cleanup: dir.cleanup,
  };
  return w;
}

describe("the edit gate", () => {
  let w: GateWorld;
  afterEach(() => w?.cleanup());

  it("asks about an ordinary edit and leaves the allowed proposal for the tool", async () => {
    w = gateWorld();
    w.write("src/a.ts", "a = 1\n");
    assert.equal(await w.call("src/a.ts", "a = 1", "a = 2", "c1"), undefined);
    assert.equal(w.requests.length, 1);
    assert.equal(w.requests[0]?.protection, undefined);
    assert.ok(w.proposals.has("c1"));
    assert.equal(w.notices[0]?.decision, "allowed");
  });

  it("applies an ordinary edit without asking under auto mode", async () => {
    w = gateWorld({ mode: "auto" });
    w.write("src/a.ts", "a = 1\n");
    assert.equal(await w.call("src/a.ts", "a = 1", "a = 2", "c1"), undefined);
    assert.equal(w.requests.length, 0);
    assert.ok(w.proposals.has("c1"));
  });

  const protectedFiles: [string, string][] = [
    [".vscode/settings.json", '{\n  "editor.tabSize": 2\n}\n'],
    [".vscode/tasks.json", '{\n  "version": "2.0.0"\n}\n'],
    [".vscode/launch.json", '{\n  "version": "0.2.0"\n}\n'],
    [".github/workflows/ci.yml", "on: push\n"],
    ["package.json", '{ "name": "app" }\n'],
    ["packages/app/package.json", '{ "name": "app" }\n'],
    [".npmrc", "registry=https://registry.npmjs.org/\n"],
    ["team.code-workspace", '{\n  "folders": []\n}\n'],
    [".gitattributes", "* text=auto\n"],
    [".gitmodules", "[submodule]\n"],
    [".husky/pre-commit", "npm test\n"],
    [".env", `API_KEY=${ENV_SECRET}\n`],
  ];
  for (const [path, text] of protectedFiles) {
    for (const how of ["auto mode", "allow-for-chat"] as const) {
      it(`still asks about ${path} under ${how}, and the card says why`, async () => {
        w = gateWorld({ mode: how === "auto mode" ? "auto" : "ask", decide: how === "allow-for-chat" ? { decision: "allowForChat" } : { decision: "allow" } });
        if (how === "allow-for-chat") {
          w.write("src/a.ts", "a = 1\n");
          await w.call("src/a.ts", "a = 1", "a = 2");
          assert.equal(w.gate.allowsEditsForChat, true);
          w.write("src/b.ts", "b = 1\n");
          await w.call("src/b.ts", "b = 1", "b = 2");
          assert.equal(w.requests.length, 1, "an ordinary edit is no longer asked about");
        }
        const before = w.requests.length;
        w.write(path, text);
        const firstLine = text.split("\n")[0]!;
        assert.equal(await w.call(path, firstLine, `${firstLine} `, "protected_call"), undefined);
        assert.equal(w.requests.length, before + 1, `${path} was asked about`);
        const request = w.requests.at(-1)!;
        assert.match(request.protection ?? "", /protected file/);
        assert.ok(request.protection?.includes(path));
        const card = w.events.find((e) => e.type === "approval/request" && e.toolCallId === "protected_call");
        assert.ok(card && card.type === "approval/request" && card.protection === request.protection, "the card carries the reason");
      });
    }
  }

  it("a denied protected edit is not left for the tool", async () => {
    w = gateWorld({ mode: "auto", decide: { decision: "deny", reason: "no" } });
    w.write(".vscode/tasks.json", "{}\n");
    const result = await w.call(".vscode/tasks.json", "{}", '{"tasks":[]}', "c1");
    assert.equal(result?.block, true);
    assert.equal(w.proposals.size, 0);
  });

  for (const path of [".git/config", ".git/hooks/pre-commit", "sub/.git/config", ".GIT/config"]) {
    it(`refuses ${path} without asking, under every mode, and tells the model why`, async () => {
      for (const mode of ["ask", "auto"] as const) {
        w?.cleanup();
        w = gateWorld({ mode });
        const original = "[core]\n\tbare = false\n";
        w.write(path, original);
        const result = await w.call(path, "bare = false", "bare = false\n\tfsmonitor = touch /tmp/pwned");
        assert.equal(result?.block, true);
        assert.match(result?.reason ?? "", /Refused: .*inside a \.git folder/);
        assert.equal(w.requests.length, 0, "nobody was asked");
        assert.equal(w.proposals.size, 0);
        assert.equal(w.read(path), original);
      }
    });
  }

  it("refuses an edit through a symlink that leads into .git", async () => {
    w = gateWorld({ mode: "auto" });
    w.write(".git/config", "[core]\n\tbare = false\n");
    const { symlinkSync } = await import("node:fs");
    symlinkSync(join(w.root, ".git/config"), join(w.root, "innocent.txt"));
    const result = await w.call("innocent.txt", "bare = false", "bare = true");
    assert.equal(result?.block, true);
    assert.match(result?.reason ?? "", /\.git folder/);
  });

  it("asks about every edit in Restricted Mode, whatever the settings, and says so", async () => {
    w = gateWorld({ mode: "auto", trusted: false, decide: { decision: "allowForChat" } });
    w.write("src/a.ts", "a = 1\n");
    w.write("src/b.ts", "b = 1\n");
    await w.call("src/a.ts", "a = 1", "a = 2");
    await w.call("src/b.ts", "b = 1", "b = 2");
    assert.equal(w.requests.length, 2);
    assert.match(w.requests[0]?.protection ?? "", /Restricted Mode/);
  });

  it("a secret file's diff reaches neither the card, the notice, nor the saved tool details", async () => {
    w = gateWorld();
    w.write(".env.local", `A=1\nAPI_KEY=${ENV_SECRET}\n`);
    const result = await w.call(".env.local", `API_KEY=${ENV_SECRET}`, "API_KEY=sk-live-new-0000000000", "c_env");
    assert.equal(result, undefined);
    const request = w.requests[0]!;
    assert.equal(request.secret, true);
    assert.equal(request.diff, "secret file: 1 line changed");
    assert.ok(request.proposedText.includes("sk-live-new"), "VS Code's own diff editor can still show it on request");
    const shown = JSON.stringify([w.events, w.notices]);
    assert.ok(!shown.includes(ENV_SECRET) && !shown.includes("sk-live-new"), "no secret in the view events or the notice");
    assert.equal(w.notices[0]?.secret, true);

    const proposal = w.proposals.get("c_env")!;
    const written = await applyEdit(createNodeWorkspaceFs(w.root), proposal);
    assert.ok(JSON.stringify(written.details).includes(ENV_SECRET), "the tool's own details do hold the diff");
    const after = await w.gate.afterToolCall({ toolCall: { id: "c_env" }, result: written } as unknown as AfterToolCallContext);
    const details = JSON.stringify(after?.details);
    assert.ok(!details.includes(ENV_SECRET) && !details.includes("sk-live-new"), details);
    assert.match(details, /secret file: 1 line changed/);
  });

  it("leaves the details of an ordinary edit alone", async () => {
    w = gateWorld();
    w.write("src/a.ts", "a = 1\n");
    await w.call("src/a.ts", "a = 1", "a = 2", "c1");
    const written = await applyEdit(createNodeWorkspaceFs(w.root), w.proposals.get("c1")!);
    assert.equal(await w.gate.afterToolCall({ toolCall: { id: "c1" }, result: written } as unknown as AfterToolCallContext), undefined);
  });

  it("reads the protected list at each call", async () => {
    const list = ["docs/**"];
    w = gateWorld({ mode: "auto", protectedFiles: list });
    w.write("docs/a.md", "x\n");
    w.write("package.json", "{}\n");
    await w.call("docs/a.md", "x", "y");
    await w.call("package.json", "{}", '{"a":1}');
    assert.deepEqual(
      w.requests.map((r) => r.path),
      ["docs/a.md"],
    );
  });

  describe("part of an edit", () => {
    const file = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    // One replacement whose changes are far apart: three hunks on the card.
    const changed = file.replace("line 5\n", "line 5\nadded 5a\nadded 5b\n").replace("line 20\n", "LINE 20\n").replace("line 35\n", "");
    const tool = (world: GateWorld) => ({ fs: createNodeWorkspaceFs(world.root) });

    it("rejecting hunk 2 writes hunks 1 and 3 only, and the tool result names hunk 2 with the user's reason", async () => {
      w = gateWorld({ decide: { decision: "allow", rejectedHunks: [1], reason: "keep the old name" } });
      w.write("a.txt", file);
      assert.equal(await w.call("a.txt", file, changed, "c1"), undefined);
      assert.equal(w.requests[0]?.hunkCount, 3);
      const result = await applyEdit(tool(w).fs, w.proposals.get("c1")!);
      assert.equal(w.read("a.txt"), file.replace("line 5\n", "line 5\nadded 5a\nadded 5b\n").replace("line 35\n", ""));
      const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      assert.match(text, /hunks 1 and 3 of 3 written; hunk 2 rejected and NOT written/);
      assert.match(text, /keep the old name/);
      assert.match(text, /-line 20\n\+LINE 20/);
      assert.equal(result.details.diff.includes("LINE 20"), false, "the result's diff is what was written");
      assert.deepEqual(w.notices[0]?.rejectedHunks, [1]);
      assert.equal(w.notices[0]?.decision, "allowed");
      assert.deepEqual(
        w.events.find((e) => e.type === "approval/decided"),
        { type: "approval/decided", toolCallId: "c1", decision: "allowed", reason: "keep the old name", rejectedHunks: [1] },
      );
    });

    it("rejecting every hunk is a denial: nothing written", async () => {
      w = gateWorld({ decide: { decision: "allow", rejectedHunks: [0, 1, 2] } });
      w.write("a.txt", file);
      const blocked = await w.call("a.txt", file, changed, "c1");
      assert.equal(blocked?.block, true);
      assert.equal(w.proposals.size, 0);
      assert.equal(w.notices[0]?.decision, "denied");
      assert.equal(w.read("a.txt"), file);
    });
  });
});
