// Continue is offered only after a cut-off turn. A Continue that arrives when there is nothing to
// continue (a stale button, a second click, a crafted webview message) must do nothing: no model
// request, no message saved, no error shown.
import assert from "node:assert/strict";
import type { ChatEvent } from "../../../src/shared/protocol";
import { chatWorld } from "../../support/chat-world";
import { createScriptedModel, reply } from "../../support/scripted-model";

describe("Continue with nothing to continue", () => {
  it("after a finished turn, and in a new chat, does nothing at all", async () => {
    const model = createScriptedModel();
    const world = chatWorld({ resolveModel: async () => model.binding });
    try {
      const fresh = world.service.newChat();
      await fresh.continue();
      assert.equal(model.requests.length, 0);
      assert.equal(fresh.messages.length, 0);

      const session = world.service.newChat();
      model.push(reply.text("The default port is 3000."));
      await session.prompt("What is the default port?");
      assert.equal(session.canContinue, false);
      const before = session.messages.length;
      const events: ChatEvent[] = [];
      session.onEvent((e) => events.push(e));
      await session.continue();
      await session.continue();
      assert.equal(model.requests.length, 1, "no second request");
      assert.equal(session.messages.length, before, "nothing added (no error notice)");
      assert.deepEqual(events, [], "nothing shown");
    } finally {
      await world.cleanup();
    }
  });
});
