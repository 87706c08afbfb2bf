// The composer's mention editing without a DOM (webview/composer/mention-tokens.ts): taking an
// option of the `@` / `/` list, inserting dropped or pasted paths, deleting a token whole with
// Backspace / Delete, a chip's remove, which mentions are live, and which list the caret is in.
import assert from "node:assert/strict";
import type { MentionRef } from "../../../src/shared/mentions";
import {
  applyEdit,
  insertMentions,
  listAt,
  liveMentions,
  pastedAt,
  removeMention,
  takeOption,
  wholeTokenAt,
  type TakenMention,
} from "../../../webview/composer/mention-tokens";

const file = (path: string): MentionRef => ({ kind: "file", path });
const taken = (path: string): TakenMention => ({ token: `@${path}`, ref: file(path) });

describe("composer mention tokens", () => {
  it("take: the typed @query becomes the token and a space, and the mention is taken once", () => {
    const text = "see @rea";
    const result = takeOption(text.length, 4, { kind: "mention", ref: file("README.md") }, [taken("README.md")]);
    assert.equal(applyEdit(text, result.edit), "see @README.md ");
    assert.deepEqual(
      result.mentions.map((m) => m.token),
      ["@README.md"],
      "taken again, not twice",
    );
  });

  it("take: a /command replaces the typed /query and takes no mention", () => {
    const result = takeOption(3, 0, { kind: "command", name: "review" }, [taken("a.ts")]);
    assert.equal(applyEdit("/re", result.edit), "/review ");
    assert.deepEqual(result.mentions, [taken("a.ts")]);
  });

  it("insert: tokens spaced from the words around them, in place of the selection", () => {
    const text = "look atthis";
    const result = insertMentions(text, 7, 7, [file("a.ts"), file("b.ts")], []);
    assert.equal(applyEdit(text, result.edit), "look at @a.ts @b.ts this");
    assert.deepEqual(
      result.mentions.map((m) => m.token),
      ["@a.ts", "@b.ts"],
    );
    const atEnd = insertMentions("x ", 2, 2, [file("c.ts")], []);
    assert.equal(applyEdit("x ", atEnd.edit), "x @c.ts ", "no double space after a space");
    const replaced = insertMentions("open src/a.ts now", 5, 13, [file("src/a.ts")], []);
    assert.equal(applyEdit("open src/a.ts now", replaced.edit), "open @src/a.ts now", "a pasted path becomes its mention");
  });

  it("delete whole: Backspace after a token or Delete before it takes the whole token; elsewhere nothing", () => {
    const mentions = [taken("a.ts")];
    const text = "x @a.ts y";
    const back = wholeTokenAt(text, 7, mentions, false);
    assert.ok(back);
    assert.equal(applyEdit(text, back), "x  y");
    const forward = wholeTokenAt(text, 2, mentions, true);
    assert.deepEqual(forward, back);
    assert.equal(wholeTokenAt(text, 6, mentions, false), undefined, "inside the token: an ordinary Backspace");
    assert.equal(wholeTokenAt(text, 7, mentions, true), undefined, "Delete after the token: ordinary");
    assert.equal(wholeTokenAt("@a.ts", 5, [], false), undefined, "typed text that was never taken is plain text");
  });

  it("remove: a chip takes its token and the space after it out of the text", () => {
    assert.equal(applyEdit("see @a.ts now", removeMention("see @a.ts now", "@a.ts")!), "see now");
    assert.equal(applyEdit("see @a.ts", removeMention("see @a.ts", "@a.ts")!), "see ");
    assert.equal(removeMention("see", "@a.ts"), undefined);
  });

  it("live: a mention whose token left the text is gone", () => {
    const mentions = [taken("a.ts"), taken("b.ts")];
    assert.deepEqual(liveMentions("only @b.ts here", mentions), [taken("b.ts")]);
  });

  it("pastedAt: where the pasted text was, else where it went, else nowhere", () => {
    assert.equal(pastedAt("x src/a.ts", { text: "src/a.ts", at: 2 }), 2);
    assert.equal(pastedAt("xyz src/a.ts", { text: "src/a.ts", at: 2 }), 4);
    assert.equal(pastedAt("gone", { text: "src/a.ts", at: 0 }), -1);
  });

  it("listAt: /name as the whole text so far, @query after a space or at the start", () => {
    assert.deepEqual(listAt("/rev", 4), { mode: "command", start: 0, query: "rev" });
    assert.equal(listAt("say /rev", 8), undefined, "a / inside the text is no command");
    assert.deepEqual(listAt("see @src/a", 10), { mode: "mention", start: 4, query: "src/a" });
    assert.deepEqual(listAt("@", 1), { mode: "mention", start: 0, query: "" });
    assert.equal(listAt("me@example.com", 14), undefined, "an address is no mention");
    assert.equal(listAt("see @a.ts now", 13), undefined, "the caret past the token");
  });
});
