// Checkpoints and secret files in the real extension host, through the real checkpoint path: Pi
// edits `.env` with edit_file (asked: a protected file) and a command rewrites a private key, a
// TLS key and `.npmrc` beside an ordinary file. Nothing of the secrets reaches the window's
// checkpoint storage, the restore preview lists them as "not kept: … (secrets are never copied)",
// the restore puts back only the ordinary file, and the clean-up removes an older version's copy
// of a `.env` and leaves every folder 0700 and file 0600.
import * as assert from "node:assert/strict";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { type RestorePlan, SECRET_NOT_KEPT, sha256 } from "../../src/core/checkpoints";
import { skippedLabel } from "../../src/host/adapters/checkpoints";
import type { PiChatTestApi } from "../../src/host/extension";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, toolCard, waitFor } from "./helpers";

function tree(dir: string): { path: string; dir: boolean; mode: number }[] {
  const out: { path: string; dir: boolean; mode: number }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    out.push({ path, dir: st.isDirectory(), mode: st.mode & 0o777 });
    if (st.isDirectory()) out.push(...tree(path));
  }
  return out;
}

describe("checkpoints: secret files in the extension host", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const dir = join(root, "cp-secrets");
  const file = (name: string) => join(dir, name);

  before(async () => {
    ({ server, api } = await startChatView());
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  it("keeps no byte of .env, a private key, a TLS key or .npmrc; the preview says not kept; storage is the user's own", async () => {
    const checkpoints = api.checkpoints;
    assert.ok(checkpoints, "a folder on disk has checkpoints");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, "deploy"), { recursive: true });
    writeFileSync(file(".env"), "API_KEY=sk-live-HOSTENV-1\n");
    writeFileSync(file("deploy/id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nHOSTSSH-1\n-----END OPENSSH PRIVATE KEY-----\n");
    writeFileSync(file("server.pem"), "-----BEGIN PRIVATE KEY-----\nHOSTTLS-1\n-----END PRIVATE KEY-----\n");
    writeFileSync(file(".npmrc"), "//registry.npmjs.org/:_authToken=npm_HOSTNPM-1\n");
    writeFileSync(file("notes.txt"), "notes before\n");

    // What an older version left in this window's storage: open modes and a kept copy of a .env.
    const store = checkpoints.checkpoints.storage.dir;
    const oldEnv = Buffer.from("API_KEY=sk-live-HOSTENV-OLD\n");
    const oldHash = sha256(oldEnv);
    mkdirSync(join(store, "blobs", oldHash.slice(0, 2)), { recursive: true });
    mkdirSync(join(store, "chats"), { recursive: true });
    writeFileSync(join(store, "blobs", oldHash.slice(0, 2), oldHash), oldEnv, { mode: 0o644 });
    const oldLine = {
      t: "change",
      path: "cp-secrets/.env",
      before: { hash: oldHash, size: oldEnv.length, kept: true },
      after: { absent: true },
      by: "edit",
      at: 1,
    };
    writeFileSync(join(store, "chats", "older-version.jsonl"), `${JSON.stringify({ t: "mark", id: "m0", at: 0 })}\n${JSON.stringify(oldLine)}\n`, {
      mode: 0o644,
    });
    for (const d of [store, join(store, "chats"), join(store, "blobs")]) chmodSync(d, 0o755);

    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({
        toolCalls: [{ id: "sec_edit_env", name: "edit_file", arguments: { path: "cp-secrets/.env", oldText: "HOSTENV-1", newText: "HOSTENV-ROTATED" } }],
      }),
      () => ({
        toolCalls: [
          {
            id: "sec_cmd",
            name: "run_command",
            arguments: {
              command:
                "cd cp-secrets && printf 'KEY HOSTSSH-ROTATED\\n' > deploy/id_rsa && printf 'KEY HOSTTLS-ROTATED\\n' > server.pem && printf '//r/:_authToken=npm_HOSTNPM-ROTATED\\n' > .npmrc && printf 'notes by pi\\n' > notes.txt",
            },
          },
        ],
      }),
      () => ({ text: "Done." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Rotate the keys." });
    for (const id of ["sec_edit_env", "sec_cmd"]) {
      await waitFor(`${id} to ask`, () => toolCard(api, id)?.approval?.state === "pending");
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: id, decision: "allow" });
    }
    await api.controller.currentSession.waitForIdle();
    await checkpoints.checkpoints.idle();
    assert.match(readFileSync(file(".env"), "utf8"), /HOSTENV-ROTATED/);
    assert.match(readFileSync(file("deploy/id_rsa"), "utf8"), /HOSTSSH-ROTATED/);

    // No byte of any secret, old or new, except the older version's copy the clean-up has not met yet.
    const scan = () =>
      tree(store)
        .filter((f) => !f.dir)
        .filter((f) => /HOST(ENV|SSH|TLS|NPM)-(1|ROTATED)/.test(readFileSync(f.path, "latin1")))
        .map((f) => f.path);
    assert.deepEqual(scan(), []);

    let previewed: RestorePlan | undefined;
    checkpoints.preview = async (plan) => {
      previewed = plan;
      return "restore";
    };
    checkpoints.notify = async () => undefined;
    const session = api.controller.currentSession;
    await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
    await waitFor("the restore", () => session.messages.some((m) => m.role === "filesRestored"));
    assert.ok(previewed);
    assert.deepEqual(
      previewed.files.map((f) => f.path),
      ["cp-secrets/notes.txt"],
    );
    assert.deepEqual(previewed.skipped.map(skippedLabel).sort(), [
      `not kept: cp-secrets/.env (${SECRET_NOT_KEPT})`,
      `not kept: cp-secrets/.npmrc (${SECRET_NOT_KEPT})`,
      `not kept: cp-secrets/deploy/id_rsa (${SECRET_NOT_KEPT})`,
      `not kept: cp-secrets/server.pem (${SECRET_NOT_KEPT})`,
    ]);
    assert.equal(readFileSync(file("notes.txt"), "utf8"), "notes before\n");
    assert.match(readFileSync(file(".env"), "utf8"), /HOSTENV-ROTATED/, "a secret file is never written back");

    // The clean-up (at activation) removes the older version's copy and sets every mode.
    await checkpoints.checkpoints.collectGarbage();
    const all = tree(store);
    assert.ok(!all.some((f) => f.path.endsWith(oldHash)), "the older version's copy of .env is gone");
    for (const f of all) assert.equal(f.mode, f.dir ? 0o700 : 0o600, `${f.path}: ${f.mode.toString(8)}`);
    assert.equal(statSync(store).mode & 0o777, 0o700);
  });
});
