// Code blocks in answers, in the real bundle: highlighted once finished (the highlighter and each
// grammar loaded only when a block needs them), a head that fits VS Code's 300 px sidebar, shell
// blocks that offer Run in terminal instead of the editor actions, the Applied/Undo line, and Copy
// on the whole answer.
import * as assert from "node:assert/strict";
import { ChatPage, type Theme } from "./harness";
import { answered, assistantMessage, Script } from "./script";

/** The red channel (0–255) of a computed colour: `rgb(…)`, or `color(srgb …)` as color-mix() computes. */
function red(colour: string): number {
  const srgb = /color\(srgb ([\d.]+)/.exec(colour);
  return srgb ? Number(srgb[1]) * 255 : Number(/rgba?\((\d+)/.exec(colour)?.[1]);
}

const TS_BLOCK =
  '```ts src/server/listen-on-port.ts\n// Start the server.\nexport function listen(port: number): string {\n  return "listening on " + port;\n}\n```';

describe("code blocks", function () {
  let chat: ChatPage | undefined;
  const open = async (options: { width?: number; theme?: Theme } = {}) => {
    chat = await ChatPage.open(options);
    await chat.snapshot();
    return chat;
  };
  afterEach(async () => {
    await chat?.assertClean();
    await chat?.close();
    chat = undefined;
  });

  const seen: Partial<Record<Theme, string>> = {};
  for (const theme of ["dark", "light"] as const) {
    it(`a finished block is highlighted in theme colours (${theme}); the highlighter loads only when a block needs it`, async () => {
      const page = await open({ theme });
      const highlighterRequests = () => page.requestedUrls.filter((u) => /\/(highlight|hl-[\w-]+)\.js$/.test(u));
      await page.events(answered("No code here, just words."));
      assert.deepEqual(highlighterRequests(), [], "nothing of the highlighter is loaded for an answer without code");
      await page.events(answered(TS_BLOCK));
      const code = page.page.locator("pre > code.md-hl");
      await code.waitFor();
      const requested = highlighterRequests().map((u) => u.slice(u.lastIndexOf("/") + 1).replace(/-[A-Z0-9]+\.js$/, ""));
      assert.ok(requested.includes("highlight.js") && requested.includes("hl-typescript"), requested.join(", "));
      assert.ok(!requested.some((name) => name.startsWith("hl-python")), "only the grammar the block names");
      // The text is unchanged (Copy and Apply read it), now in coloured spans.
      assert.equal(await code.textContent(), '// Start the server.\nexport function listen(port: number): string {\n  return "listening on " + port;\n}');
      const colour = (selector: string) =>
        code
          .locator(selector)
          .first()
          .evaluate((el) => getComputedStyle(el).color);
      const plain = await code.evaluate((el) => getComputedStyle(el).color);
      const keyword = await colour(".hljs-keyword");
      const str = await colour(".hljs-string");
      assert.equal(await code.locator(".hljs-keyword").first().textContent(), "export");
      assert.notEqual(keyword, plain);
      assert.notEqual(str, plain);
      assert.notEqual(keyword, str);
      // The colours come from the theme's variables: a theme with another keyword colour shows it.
      await page.page.evaluate(() => document.documentElement.style.setProperty("--vscode-debugTokenExpression-boolean", "rgb(255, 0, 0)"));
      const recoloured = await colour(".hljs-keyword");
      assert.notEqual(recoloured, keyword);
      assert.ok(red(recoloured) >= 160, `the keyword turned red (${recoloured})`);
      seen[theme] = keyword;
      if (seen.dark && seen.light) assert.notEqual(seen.dark, seen.light, "each theme its own colours");
      // Comments: the theme's muted colour (in Light Modern the same as the text), and italic.
      assert.equal(
        await code
          .locator(".hljs-comment")
          .first()
          .evaluate((el) => getComputedStyle(el).fontStyle),
        "italic",
      );
    });
  }

  it("while the answer streams, the block being written stays plain and is highlighted once it is closed", async () => {
    const page = await open();
    const script = new Script().start().user("Show me");
    const partial = assistantMessage([]);
    script.agent({ type: "message_start", message: partial });
    script.agent({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_start", contentIndex: 0, partial } });
    const delta = (text: string) =>
      script.agent({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: text, partial } }).take();
    // The fence is still open: the block is redrawn on every delta, so it is not highlighted.
    await page.events(delta("Here:\n\n```ts\nexport const port = 8080;\n"));
    await page.page.locator("pre > code.language-ts").waitFor();
    // Settled: nothing waits to be highlighted and nothing loads (a block taken for highlighting would still be waiting).
    await page.page.waitForFunction(() => window.__piChatTest!.highlightingSettled());
    assert.equal(await page.page.locator("pre > code.md-hl").count(), 0, "the open block stays plain");
    // Closed, and the next paragraph begun: the block is settled, so it is highlighted mid-stream.
    await page.events(delta("```\n\nAnd then"));
    await page.page.locator("pre > code.md-hl").waitFor();
    assert.equal(await page.page.locator("article.streaming pre > code.md-hl .hljs-keyword").first().textContent(), "export");
  });

  it("at 300 px the head is one row: the label whole, the file cut with its name in a tooltip, icon buttons with their names", async () => {
    const page = await open({ width: 300 });
    await page.events(answered(`${TS_BLOCK}\n\n\`\`\`typescript\nconst a = 1;\n\`\`\``));
    const heads = page.page.locator(".md-code-head");
    assert.equal(await heads.count(), 2);
    for (let i = 0; i < 2; i++) {
      const head = heads.nth(i);
      const box = await head.evaluate((el) => {
        const rect = (node: Element | null) => node?.getBoundingClientRect();
        const label = rect(el.querySelector(".md-code-lang"))!;
        const buttons = Array.from(el.querySelectorAll("button")).map((b) => b.getBoundingClientRect());
        return {
          head: rect(el)!.height,
          labelHeight: label.height,
          labelLineHeight: parseFloat(getComputedStyle(el.querySelector(".md-code-lang")!).lineHeight) || 20,
          buttonTops: buttons.map((b) => Math.round(b.top)),
          right: Math.max(...buttons.map((b) => b.right)),
          width: rect(el)!.right,
        };
      });
      assert.ok(box.labelHeight <= box.labelLineHeight + 1, `the language label is one line (${box.labelHeight}px)`);
      assert.equal(new Set(box.buttonTops).size, 1, `buttons in one row (${box.buttonTops.join(", ")})`);
      assert.ok(box.head <= 28, `the head is one row (${box.head}px)`);
      assert.ok(box.right <= box.width + 0.5, "the buttons fit in the block");
    }
    // Icons only, each with its name (for screen readers and the keyboard) and a tooltip.
    const first = heads.first();
    for (const name of ["Insert at cursor", "Apply to file", "Copy"]) {
      const button = first.getByRole("button", { name, exact: true });
      assert.equal(await button.count(), 1, name);
      assert.ok(((await button.getAttribute("title")) ?? "").length > 0, `${name} has a tooltip`);
      const words = await button.locator(".md-label").evaluate((el) => el.getBoundingClientRect().width);
      assert.ok(words <= 1, `${name}: its words are hidden at 300 px`);
    }
    assert.equal(await first.locator(".md-code-path").getAttribute("title"), "src/server/listen-on-port.ts");
  });

  it("wide, the buttons say their words", async () => {
    const page = await open({ width: 700 });
    await page.events(answered(TS_BLOCK));
    const words = await page.page.locator(".md-code-head .md-apply .md-label").evaluate((el) => el.getBoundingClientRect().width);
    assert.ok(words > 30, `Apply to file is spelt out (${words}px)`);
  });

  it("shell blocks offer Run in terminal and Copy, never the editor actions; Run posts the command", async () => {
    const page = await open();
    const shells = ["bash", "sh", "zsh", "shell", "console", "powershell"];
    const answer = [...shells.map((lang) => `\`\`\`${lang}\nnpm test\n\`\`\``), "```console\n$ npm run build\nbuilt in 2s\n$ npm test\n12 passing\n```"].join(
      "\n\n",
    );
    await page.events(answered(answer));
    const blocks = page.page.locator(".md-code");
    assert.equal(await blocks.count(), shells.length + 1);
    for (let i = 0; i < shells.length + 1; i++) {
      const names = await blocks
        .nth(i)
        .locator(".md-code-head button")
        .evaluateAll((buttons) => buttons.map((b) => b.textContent));
      assert.deepEqual(names, ["Run in terminal", "Copy"], shells[i] ?? "console transcript");
    }
    await page.clearPosted();
    await blocks.nth(0).getByRole("button", { name: "Run in terminal" }).click();
    await blocks.nth(shells.length).getByRole("button", { name: "Run in terminal" }).click();
    assert.deepEqual(await page.postedOf("editor/runInTerminal"), [
      { type: "editor/runInTerminal", v: 1, command: "npm test" },
      // A console transcript runs its prompted lines, without the prompt or the output.
      { type: "editor/runInTerminal", v: 1, command: "npm run build\nnpm test" },
    ]);
    assert.equal(await page.page.getByRole("button", { name: "Insert at cursor" }).count(), 0);
    assert.equal(await page.page.getByRole("button", { name: "Apply to file" }).count(), 0);
  });

  it("after Apply the block says where it went, with Undo; Undo asks the host and the block says it was undone", async () => {
    const page = await open();
    await page.events(answered(TS_BLOCK));
    await page.clearPosted();
    await page.page.getByRole("button", { name: "Apply to file" }).click();
    const [apply] = await page.postedOf("editor/applyCode");
    assert.ok(apply?.requestId !== undefined);
    assert.equal(apply.path, "src/server/listen-on-port.ts");
    await page.send([{ type: "editor/codeApplied", requestId: apply.requestId, path: "src/server/listen-on-port.ts", state: "applied" }]);
    const status = page.page.locator(".md-code .md-code-status");
    assert.equal(await status.locator(".md-code-status-text").textContent(), "Applied to src/server/listen-on-port.ts");
    await status.getByRole("button", { name: "Undo" }).click();
    assert.deepEqual(await page.postedOf("editor/undoApply"), [{ type: "editor/undoApply", v: 1, requestId: apply.requestId }]);
    await page.send([{ type: "editor/codeApplied", requestId: apply.requestId, path: "src/server/listen-on-port.ts", state: "undone" }]);
    assert.equal(await status.textContent(), "Undid the change to src/server/listen-on-port.ts");
    assert.equal(await status.getByRole("button").count(), 0);
  });

  it("an answer can be copied whole, as the Markdown it was written in", async () => {
    const page = await open();
    await page.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const text = `Here is the server:\n\n${TS_BLOCK}\n\nRun it with \`npm start\`.`;
    await page.events(answered(text));
    await page.page.getByRole("button", { name: "Copy answer", exact: true }).click();
    await page.page.getByRole("button", { name: "Copied", exact: true }).waitFor();
    assert.equal(await page.page.evaluate(() => navigator.clipboard.readText()), text);
  });
});
