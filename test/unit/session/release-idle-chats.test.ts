// Chats the view left are let go once idle (issue 30: host memory must not grow with every chat
// opened in turn): the session is dropped from the service, the file keeps everything, and opening
// the chat again reads the same conversation. A chat still running, or one the user went back to
// during the wait, is kept.
import assert from "node:assert/strict";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { chatWorld } from "../../support/chat-world";

describe("ChatService.release: chats the view left are let go", () => {
  it("drops an idle chat; opening it again reads the same conversation from its file", async () => {
    const model = createScriptedModel();
    const world = chatWorld({ resolveModel: async () => model.binding });
    try {
      model.push(reply.text("The port is 3000."));
      const session = world.service.newChat();
      await session.prompt("Which port?");
      const before = JSON.stringify(session.messages);
      assert.equal(await world.service.release(session.id, () => true), true);
      assert.equal(world.service.get(session.id), undefined, "the session is gone from memory");
      const opened = await world.service.open(session.id);
      assert.ok(opened.ok);
      assert.notEqual(opened.session, session, "read again from the file");
      assert.equal(JSON.stringify(opened.session.messages), before);
    } finally {
      await world.cleanup();
    }
  });

  it("waits for a running chat to end, and keeps a chat the user went back to", async () => {
    const model = createScriptedModel({ tokensPerSecond: 200 });
    const world = chatWorld({ resolveModel: async () => model.binding });
    try {
      model.push(reply.text("A fairly long answer that takes a moment to stream out word by word."));
      const session = world.service.newChat();
      const running = session.prompt("Tell me something.");
      // Running from the call on (no wait: a wait here raced the 75 ms answer on a busy machine).
      assert.equal(session.running, true);
      let backInView = false;
      const released = world.service.release(session.id, () => !backInView);
      // The user switches back before the run ends: the session must stay (two sessions of one chat would both write its file).
      backInView = true;
      await running;
      assert.equal(await released, false);
      assert.equal(world.service.get(session.id), session);
    } finally {
      await world.cleanup();
    }
  });
});
