// A chat another VS Code window is writing is read-only here: the view says so ("open in another
// window"), nothing can be sent, and Continue is not offered; when the host says the other window
// is done, the composer works again.
import * as assert from "node:assert/strict";
import { useChatPage } from "./harness";
import { Script, stateOf } from "./script";

describe("a chat written in another window", function () {
  const page = useChatPage({ snapshot: false });

  it("is read-only with a banner, and editable again when that window is done", async () => {
    const chat = page();
    const state = stateOf(
      new Script()
        .start()
        .user("Hi")
        .assistant([{ type: "text", text: "Hello." }])
        .end()
        .take(),
    );
    await chat.snapshot(state, { status: { writtenElsewhere: true, canContinue: true } });
    const banner = chat.page.locator(".written-elsewhere");
    assert.match(
      await banner.innerText(),
      /Open in another window: this chat is being written there, so it is read-only here\. It reloads when that window is done\./,
    );
    assert.equal(await banner.getAttribute("role"), "status");
    const input = chat.page.locator("textarea.input");
    assert.equal(await input.getAttribute("readonly"), "");
    assert.match((await input.getAttribute("placeholder")) ?? "", /read-only here/);
    await input.focus();
    await chat.page.keyboard.type("Send this?");
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [], "nothing was sent");
    assert.equal(await chat.page.locator(".continue-bar").count(), 0, "no Continue while the other window writes");

    await chat.send([
      { type: "view/status", status: { modelLabel: "m", storage: "workspace", canContinue: false, editsAllowedForChat: false, writtenElsewhere: false } },
    ]);
    assert.equal(await banner.count(), 0);
    assert.equal(await input.getAttribute("readonly"), null);
    await input.fill("Now it works");
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(
      (await chat.postedOf("chat/send")).map((m) => m.text),
      ["Now it works"],
    );
  });
});
