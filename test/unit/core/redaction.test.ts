// The redactor: keys by value (whole, per line, JSON- and URL-escaped), then key shapes.
import assert from "node:assert/strict";
import { REDACTED, SecretRedactor, StreamRedaction } from "../../../src/core/redaction";

/** Keys that look like no known key shape: the old shape-only redactor let each of them through. */
export const ODD_KEYS = [
  "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", // bare hex
  "123e4567-e89b-12d3-a456-426614174000", // a UUID
  "Zm9vYmFyYmF6cXV4+/0123456789==", // base64 with + / =
  'ab"cd\\ef~!@#$%^&*()-key-0001', // characters JSON escapes
  "key with spaces inside 000111", // not storable, but an environment could hold it
];

describe("SecretRedactor", () => {
  for (const key of ODD_KEYS) {
    it(`redacts ${JSON.stringify(key)} as typed, JSON-escaped and URL-encoded`, () => {
      const r = new SecretRedactor();
      r.add(key);
      for (const text of [`error: ${key}.`, JSON.stringify({ message: `bad key ${key}` }), `GET /v1?key=${encodeURIComponent(key)}&x=1`]) {
        const out = r.text(text);
        assert.ok(!out.includes(key), out);
        assert.ok(!out.includes(JSON.stringify(key).slice(1, -1)), out);
        assert.ok(!out.includes(encodeURIComponent(key)), out);
      }
      assert.equal(r.text(`error: ${key}.`), `error: ${REDACTED}.`);
    });
  }

  it("redacts each line of a key with a line break inside", () => {
    const r = new SecretRedactor();
    r.add("first-half-AAAA1111\nsecond-half-BBBB2222");
    const out = r.text("Headers.append: Invalid header value 'first-half-AAAA1111' and then second-half-BBBB2222 ends");
    assert.ok(!out.includes("first-half-AAAA1111") && !out.includes("second-half-BBBB2222"), out);
  });

  it("still redacts the usual key shapes it was not told about", () => {
    const r = new SecretRedactor();
    const out = r.text("sk-proj-abcdef123456 AIzaSyA1234567890abcdef Bearer abc.def.ghi123 ?key=zzz");
    for (const leaked of ["abcdef123456", "SyA1234567890abcdef", "abc.def.ghi123", "zzz"]) assert.ok(!out.includes(leaked), out);
  });

  it("catches a key-ish word after a word naming a key: 'bad key <k>' in JSON, 'token <k> rejected', 'secret: <k>'", () => {
    const r = new SecretRedactor();
    const key = "Zq8wX2vB7nM4kL9pR3tY6uI1oP5";
    for (const text of [
      JSON.stringify({ error: { message: `bad key ${key}` } }),
      `token ${key} rejected`,
      `secret: ${key}`,
      `API key=${key}`,
      `invalid_api_key ${key}`,
    ]) {
      const out = r.text(text);
      assert.ok(!out.includes(key), out);
    }
    // Ordinary words after "key" or "token" stay: no digit, or too short.
    assert.equal(r.text("the key question is tokenization"), "the key question is tokenization");
    assert.equal(r.text("unexpected token punctuation here"), "unexpected token punctuation here");
    assert.equal(r.text("key a1b2"), "key a1b2");
  });

  it("cutPoint never splits a known key or a key shape, and holds back what could be the start of one", () => {
    const r = new SecretRedactor();
    const key = "3f9a8b7c6d5e4f3a2b1c";
    r.add(key);
    const text = `${"x".repeat(100)}${key}${"y".repeat(10)}`;
    for (let hold = 0; hold <= 40; hold++) {
      const cut = r.cutPoint(text, hold);
      assert.ok(cut <= text.length - Math.max(hold, key.length));
      assert.ok(cut <= 100 || cut >= 100 + key.length, `hold ${hold}: cut ${cut} splits the key`);
    }
    const shaped = `${"a ".repeat(50)}sk-proj-${"b".repeat(40)} end`;
    const cut = r.cutPoint(shaped, 10);
    assert.ok(cut <= 100, "cut before the sk- shape that spans the point");
  });

  it("ignores values too short to be keys, so words survive", () => {
    const r = new SecretRedactor();
    r.add("a\nb");
    r.add("");
    r.add(undefined);
    assert.equal(r.size, 0);
    assert.equal(r.text("a b c"), "a b c");
  });

  it("deep() copies only what changed, keys of objects included", () => {
    const r = new SecretRedactor();
    const key = "3f9a8b7c6d5e4f3a2b1c";
    r.add(key);
    const clean = { role: "assistant", content: [{ type: "text", text: "hi" }], n: 1, bytes: new Uint8Array([1]) };
    assert.equal(r.deep(clean), clean, "unchanged: the same object");
    const dirty = { role: "assistant", errorMessage: `401 ${key}`, content: clean.content, headers: { [key]: "x" } };
    const out = r.deep(dirty);
    assert.notEqual(out, dirty);
    assert.equal(out.content, clean.content, "untouched parts are shared");
    assert.ok(!JSON.stringify(out).includes(key));
    assert.ok(dirty.errorMessage.includes(key), "the input is not mutated");
  });

  it("a stream never shows a key split across deltas, and loses no text", () => {
    const key = "3f9a8b7c6d5e4f3a2b1c";
    const r = new SecretRedactor();
    r.add(key);
    const text = `one ${key} two ${key.slice(0, 7)}x three ${key}`;
    for (const size of [1, 3, 7, 19, 100]) {
      const stream = new StreamRedaction(r);
      let shown = "";
      for (let i = 0; i < text.length; i += size) shown += stream.delta(0, text.slice(i, i + size));
      assert.ok(!shown.includes(key), `chunks of ${size}`);
      for (const [, rest] of stream.flush()) shown += rest;
      assert.equal(shown, r.values(text), `chunks of ${size}: everything arrives, redacted`);
    }
    const none = new StreamRedaction(new SecretRedactor());
    assert.equal(none.delta(0, "abc"), "abc", "nothing is held when no key is known");
  });

  it("a stream holds back only an end that could start a key, and a key cut at any point never shows", () => {
    const key = "sk-ant-api03-Zq8vWm2Lr5Tx7Yp1Kd4Hs6Jf9Gb3Nc0Ve2Xa8Uw5Qt1Ry7Io4Pl6Mk9Bh3Dn0Cg2Ej5Fs8";
    const r = new SecretRedactor();
    r.add(key);
    r.add("line1-of-a-key\nline2-of-a-key");
    const words = new StreamRedaction(r);
    assert.equal(words.delta(0, "Thinking about it"), "Thinking about it", "no end of it starts a key: shown at once");
    assert.equal(words.delta(0, " with sk-"), " with ", "an end that starts the key waits");
    assert.equal(words.delta(0, "learn more"), "sk-learn more", "and is shown once it is no key");
    const text = `before ${key} between line1-of-a-key after ${key.slice(0, 30)}.`;
    for (let cut = 0; cut <= text.length; cut++) {
      const stream = new StreamRedaction(r);
      const first = stream.delta(0, text.slice(0, cut));
      const firstKeyAt = text.indexOf(key);
      // Before the key starts everything is shown; from there on, none of the key's first characters.
      if (cut <= firstKeyAt) assert.equal(first, text.slice(0, cut), `cut at ${cut}`);
      else if (cut < firstKeyAt + key.length) assert.equal(first, text.slice(0, firstKeyAt), `cut at ${cut}`);
      let shown = first + stream.delta(0, text.slice(cut));
      for (const [, rest] of stream.flush()) shown += rest;
      assert.ok(!shown.includes(key), `cut at ${cut}`);
      assert.equal(shown, r.values(text), `cut at ${cut}: everything arrives, redacted`);
    }
  });
});
