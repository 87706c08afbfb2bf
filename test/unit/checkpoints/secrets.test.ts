// Checkpoints never keep a secret file's content, and keep what they do keep for the user only:
// edits and commands that change `.env`, a private key, a certificate key and `.npmrc` leave no
// byte of them in storage (not even a hash), the plan lists them as not kept, a restore leaves
// them alone, an older version's copies are removed by the clean-up, and every file and folder
// under `checkpoints/` is 0600/0700, an older version's 0644/0755 ones included.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpoints, createNodeCheckpointIo, SECRET_NOT_KEPT, sha256 } from "../../../src/core/checkpoints";
import { modesUnder } from "../../support/temp";
import { createEditFileTool, createNodeWorkspaceFs } from "../../../src/core/tools";

const SECRETS: Record<string, string> = {
  ".env": "API_KEY=sk-live-ENVSECRET-1\n",
  "deploy/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nSSHSECRET-1\n-----END OPENSSH PRIVATE KEY-----\n",
  "certs/server.key": "-----BEGIN PRIVATE KEY-----\nTLSSECRET-1\n-----END PRIVATE KEY-----\n",
  ".npmrc": "//registry.npmjs.org/:_authToken=npm_NPMSECRET-1\n",
};
const MARKERS = ["ENVSECRET", "SSHSECRET", "TLSSECRET", "NPMSECRET", "ROTATED"];

describe("checkpoints: secret files and storage modes", function () {
  this.timeout(20_000);
  let base: string;
  let ws: string;
  let storage: string;
  let checkpoints: Checkpoints;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "pi-chat-cp-secrets-"));
    ws = join(base, "ws");
    storage = join(base, "storage");
    mkdirSync(ws);
    mkdirSync(storage);
    for (const [rel, text] of Object.entries({ ...SECRETS, "notes.txt": "notes before\n" })) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
    checkpoints = new Checkpoints({ storageRoot: storage, io: createNodeCheckpointIo([{ name: "ws", root: ws }]) });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("an edit and a command that change secret files keep none of their bytes; the plan says not kept; a restore leaves them", async () => {
    const chat = checkpoints.forChat("chat1");
    await chat.mark("m1");
    await checkpoints.warm(); // the first walk reads every visible file
    const edit = createEditFileTool(chat.recordingFs(createNodeWorkspaceFs(ws)));
    await edit.execute("e1", { path: ".env", oldText: "ENVSECRET-1", newText: "ENVSECRET-ROTATED" });
    const before = await checkpoints.beforeCommand();
    for (const rel of Object.keys(SECRETS).slice(1)) writeFileSync(join(ws, rel), `${SECRETS[rel]!.replace("-1", "-ROTATED")}`);
    writeFileSync(join(ws, "notes.txt"), "notes by pi\n");
    await checkpoints.afterCommand("chat1", before);

    const stored = modesUnder(join(storage, "checkpoints")).filter((f) => !f.dir);
    for (const f of stored) {
      const text = readFileSync(f.path, "latin1");
      for (const marker of MARKERS) assert.ok(!text.includes(marker), `${f.path} holds ${marker}`);
    }
    // Not even a hash: a short secret's sha256 can be guessed.
    const journal = readFileSync(join(storage, "checkpoints", "chats", "chat1.jsonl"), "utf8");
    for (const text of Object.values(SECRETS)) assert.ok(!journal.includes(sha256(Buffer.from(text))), "a secret's hash is in the journal");

    const plan = await checkpoints.plan("chat1", "m1");
    assert.deepEqual(
      plan?.files.map((f) => f.path),
      ["notes.txt"],
    );
    assert.deepEqual(
      Object.fromEntries((plan?.skipped ?? []).map((s) => [s.path, s.reason])),
      Object.fromEntries(Object.keys(SECRETS).map((p) => [p, SECRET_NOT_KEPT])),
    );
    await checkpoints.restore("chat1", "m1", plan);
    assert.equal(readFileSync(join(ws, "notes.txt"), "utf8"), "notes before\n");
    assert.match(readFileSync(join(ws, ".env"), "utf8"), /ENVSECRET-ROTATED/, "a secret file is never written back");
  });

  it("storage is the user's own: folders 0700 and files 0600, an older version's 0755/0644 ones set right", async () => {
    // What an older version left: open folders, a readable journal, and a kept copy of a .env.
    const dir = join(storage, "checkpoints");
    const oldEnv = Buffer.from("API_KEY=sk-live-ENVSECRET-OLD\n");
    const oldNote = Buffer.from("an ordinary file\n");
    for (const bytes of [oldEnv, oldNote]) {
      const hash = sha256(bytes);
      mkdirSync(join(dir, "blobs", hash.slice(0, 2)), { recursive: true, mode: 0o755 });
      writeFileSync(join(dir, "blobs", hash.slice(0, 2), hash), bytes, { mode: 0o644 });
    }
    mkdirSync(join(dir, "chats"), { recursive: true, mode: 0o755 });
    const kept = (bytes: Buffer) => ({ hash: sha256(bytes), size: bytes.length, kept: true });
    writeFileSync(
      join(dir, "chats", "old.jsonl"),
      [
        { t: "mark", id: "m0", at: 1 },
        { t: "change", path: ".env", before: kept(oldEnv), after: { absent: true }, by: "edit", at: 2 },
        { t: "change", path: "old.txt", before: kept(oldNote), after: { absent: true }, by: "edit", at: 3 },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(""),
      { mode: 0o644 },
    );
    for (const d of [dir, join(dir, "blobs"), join(dir, "chats")]) chmodSync(d, 0o755);

    // The next write closes the folders at once.
    const chat = checkpoints.forChat("chat1");
    await chat.mark("m1");
    await checkpoints.idle();
    for (const d of [dir, join(dir, "chats")]) assert.equal(statSync(d).mode & 0o777, 0o700, `${d} after the next write`);
    assert.equal(statSync(join(dir, "chats", "chat1.jsonl")).mode & 0o777, 0o600);

    // A blob kept again (the walk reads a file with its content) is set right at once.
    writeFileSync(join(ws, "old.txt"), oldNote);
    await checkpoints.afterCommand("chat1", await checkpoints.beforeCommand());
    const noteBlob = join(dir, "blobs", sha256(oldNote).slice(0, 2), sha256(oldNote));
    assert.equal(statSync(noteBlob).mode & 0o777, 0o600, "an older version's blob, kept again");
    assert.equal(statSync(join(noteBlob, "..")).mode & 0o777, 0o700);

    // The clean-up at activation removes the old copy of the secret and sets every mode.
    await checkpoints.collectGarbage();
    const all = modesUnder(dir);
    assert.ok(all.length > 3);
    for (const f of all) assert.equal(f.mode, f.dir ? 0o700 : 0o600, `${f.path}: ${f.mode.toString(8)}`);
    const hashes = all.filter((f) => !f.dir).map((f) => f.path.split("/").pop());
    assert.ok(!hashes.includes(sha256(oldEnv)), "the older version's copy of .env is gone");
    assert.ok(hashes.includes(sha256(oldNote)), "an ordinary file's copy stays");
  });
});
