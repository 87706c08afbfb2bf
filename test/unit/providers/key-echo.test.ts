// A server that echoes the key it was sent, through the real openai-completions adapter and a
// whole ChatService: for keys of odd shapes (no sk-/AIza/Bearer look), the key appears nowhere
// in the transcript on disk, nor in anything the session sends to the view.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SecretRedactor } from "../../../src/core/redaction";
import type { ChatEvent } from "../../../src/shared/protocol";
import { chatItems } from "../../../src/shared/reducer";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { startOpenAIServer, type OpenAIServer } from "../../support/openai-server";
import { secretsOf } from "./helpers";

const KEYS = ["3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "123e4567-e89b-12d3-a456-426614174000", "Zm9vYmFyYmF6cXV4+/0123456789==", 'ab"cd\\ef~!@#$%^&*()-key-0001'];

describe("providers: a key echoed back is redacted everywhere", () => {
  let server: OpenAIServer;
  let w: ChatWorld;
  afterEach(async () => {
    await w?.cleanup();
    await server?.close();
  });

  for (const key of KEYS) {
    it(`key ${JSON.stringify(key)}: echoed in an error body and in a streamed answer`, async () => {
      server = await startOpenAIServer({ chunkSize: 5 }); // the key arrives split across deltas
      const redactor = new SecretRedactor();
      const settings = { provider: "openai-compatible" as const, model: "local-model", baseUrl: `${server.url}/v1` };
      w = chatWorld({
        resolveModel: () => resolveModelBinding(settings, secretsOf({ "openai-compatible": key }), { onKeyUsed: (k) => redactor.add(k) }),
        redactor,
      });
      server.failNext(401, { error: { message: `Incorrect API key provided: ${key}. Check it.`, type: "invalid_request_error", code: "invalid_api_key" } });
      server.push(() => ({ text: `Your key is ${key}, I saw it in the header.` }));
      const session = w.service.newChat();
      const events: ChatEvent[] = [];
      session.onEvent((e) => events.push(e));
      await session.prompt("hello");
      await session.continue();
      const chatRequests = server.requests.filter((r) => r.path === "/v1/chat/completions");
      assert.equal(chatRequests.filter((r) => r.authorization === `Bearer ${key}`).length, 2, "the key really was sent, and echoed twice");

      const escaped = JSON.stringify(key).slice(1, -1);
      const saved = readdirSync(join(w.storageDir, "chats"))
        .map((f) => readFileSync(join(w.storageDir, "chats", f), "utf8"))
        .join("\n");
      assert.ok(!saved.includes(key) && !saved.includes(escaped), "not in the transcript file");
      assert.match(saved, /\[redacted\]/);
      const streamed = events.flatMap((e) => (e.type === "message/delta" ? [e.text] : [])).join("");
      assert.ok(streamed.length > 0 && !streamed.includes(key), "not in the streamed text, even joined (the host merges deltas)");
      const shown = JSON.stringify(events);
      assert.ok(!shown.includes(key) && !shown.includes(escaped), "not in any event for the view");
      const items = JSON.stringify(chatItems(session.viewState));
      assert.ok(!items.includes(key) && !items.includes(escaped), "not in the view's items");
      assert.match(items, /Your key is \[redacted\], I saw it/, "the final answer is sent whole, redacted");
    });
  }
});
