// What a provider says back is redacted everywhere, in the real extension host: a local server
// echoes the key it was sent (in a 401 error body and in a streamed answer), for keys of shapes
// no pattern would catch. The key must appear 0 times in the transcript file, the Output
// channel, the messages posted to the webview (all its DOM is drawn from) and notifications.
import * as assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { activateExtension } from "./helpers";

const ODD_KEYS = [
  "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
  "123e4567-e89b-12d3-a456-426614174000",
  "Zm9vYmFyYmF6cXV4+/0123456789==",
  'ab"cd\\ef~!@#$%^&*()-key-0001',
];

type Notify = (message: string, ...rest: unknown[]) => Thenable<unknown>;

describe("a key echoed by the provider is redacted everywhere", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const notifications: string[] = [];
  const originals: Partial<Record<"showErrorMessage" | "showWarningMessage" | "showInformationMessage", Notify>> = {};

  before(async () => {
    server = await startOpenAIServer({ chunkSize: 5 });
    api = await activateExtension(`${server.url}/v1`);
    // Record every notification the extension shows (the test shares the extension's API object).
    const window = vscode.window as unknown as Record<string, Notify>;
    for (const name of ["showErrorMessage", "showWarningMessage", "showInformationMessage"] as const) {
      const original = window[name]!;
      originals[name] = original;
      window[name] = (message: string, ...rest: unknown[]) => {
        notifications.push(message);
        return original.call(vscode.window, message, ...rest);
      };
    }
  });

  after(async () => {
    const window = vscode.window as unknown as Record<string, Notify>;
    for (const [name, original] of Object.entries(originals)) window[name] = original;
    await api.secrets.delete("openai-compatible");
    await server?.close();
  });

  function transcripts(): string {
    const storageDir = api.storageDir;
    const dir = join(storageDir, "chats");
    return readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("\n");
  }

  for (const key of ODD_KEYS) {
    it(`key ${JSON.stringify(key)}`, async () => {
      await vscode.commands.executeCommand("piChat.newChat");
      await api.secrets.set("openai-compatible", key);
      const posted = api.view.posted!;
      const postedBefore = posted.length;
      const logBefore = api.logLines.length;
      server.failNext(401, {
        error: { message: `Incorrect API key provided: ${key}. You passed it as Bearer ${key}.`, type: "invalid_request_error", code: "invalid_api_key" },
      });
      server.push(() => ({ text: `I can see your key: ${key}. Keep it safe.` }));
      await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
      await api.view.receive({ type: "chat/continue", v: 1 });
      assert.equal(server.requests.filter((r) => r.authorization === `Bearer ${key}`).length, 2, "the key was sent and echoed twice");

      const escaped = JSON.stringify(key).slice(1, -1);
      const leaks = (text: string) => text.includes(key) || text.includes(escaped);
      assert.ok(!leaks(transcripts()), "transcript file");
      const log = api.logLines.slice(logBefore).join("\n");
      assert.match(log, /provider error: .*\[redacted\]/, "the Output channel logged the error, redacted");
      assert.ok(!leaks(log), "Output channel");
      const sent = JSON.stringify(posted.slice(postedBefore));
      assert.match(sent, /I can see your key: \[redacted\]/);
      assert.ok(!leaks(sent), "messages to the webview");
      assert.ok(!leaks(notifications.join("\n")), "notifications");
    });
  }
});
