// Model output is untrusted: hostile markdown/HTML must render inert — no script runs, no
// handler fires, no dangerous link survives, nothing remote loads — without the CSP having to
// block anything (a violation would mean the sanitizer let it through to the DOM).
import * as assert from "node:assert/strict";
import { ChatPage } from "./harness";
import { Script } from "./script";

const HOSTILE = [
  "Here you go:",
  "",
  "<script>window.__pwned=1</script>",
  "",
  '<img src=x onerror="window.__pwned=1">',
  "",
  "[click me](javascript:window.__pwned=1)",
  "",
  "[tab trick](java\tscript:window.__pwned=1) and [entity](&#106;avascript:window.__pwned=1)",
  "",
  '<a href="javascript:window.__pwned=1">raw link</a>',
  "",
  '<iframe src="javascript:window.__pwned=1"></iframe>',
  "",
  '<svg onload="window.__pwned=1"><circle r="4"/></svg>',
  "",
  "![tracker](https://evil.example/pixel.png?leak=1)",
  "",
  "[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)",
  "",
  '<div style="position:fixed;inset:0;background:red" onclick="window.__pwned=1">overlay</div>',
  "",
  '<form action="https://evil.example"><input name=x><button>go</button></form>',
  "",
  '<a href="https://example.com" onmouseover="window.__pwned=1" data-path="/etc/passwd">safe link</a>',
  "",
  'Inline <b onmouseover="window.__pwned=1">bold</b> and <style>body{display:none}</style> done.',
  "",
  "[vscode](command:workbench.action.terminal.new) [ok](https://example.com/docs)",
].join("\n");

describe("hostile model output", function () {
  let chat: ChatPage;
  beforeEach(async () => {
    chat = await ChatPage.open();
    await chat.snapshot();
  });
  afterEach(async () => {
    await chat.close();
  });

  for (const mode of ["streamed", "final"] as const) {
    it(`renders inert (${mode})`, async () => {
      const script = new Script().start().user("Show me something");
      script.assistant([{ type: "text", text: HOSTILE }], { chunk: 9, open: mode === "streamed" });
      await chat.events(script.take());
      const message = chat.page.locator(".assistant").first();
      // Anything that could fire (onerror, onload, a navigation) has: no request is left in flight.
      await chat.quiet();

      const inside = await message.evaluate((el) => ({
        scripts: el.querySelectorAll("script").length,
        iframes: el.querySelectorAll("iframe, frame, object, embed").length,
        imgs: el.querySelectorAll("img, svg:not(.icon), image, video, audio").length,
        forms: el.querySelectorAll("form, input, textarea, select").length,
        styles: el.querySelectorAll("style, [style]").length,
        handlers: [...el.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => a.name.startsWith("on"))).length,
        hrefs: [...el.querySelectorAll("[href]")].map((a) => a.getAttribute("href") ?? ""),
        dataPaths: [...el.querySelectorAll("[data-path]")].map((a) => a.getAttribute("data-path")),
        text: (el as HTMLElement).innerText,
      }));
      assert.equal(inside.scripts, 0, "no <script>");
      assert.equal(inside.iframes, 0, "no frames");
      assert.equal(inside.imgs, 0, "no images or SVG from the model");
      assert.equal(inside.forms, 0, "no forms");
      assert.equal(inside.styles, 0, "no style elements or attributes");
      assert.equal(inside.handlers, 0, "no inline event handlers");
      for (const href of inside.hrefs)
        assert.match(href, /^(https:\/\/example\.com\/?(docs)?|https:\/\/evil\.example\/pixel\.png\?leak=1|#)$/, `unexpected href ${href}`);
      assert.ok(!inside.hrefs.some((h) => /^\s*(javascript|data|vbscript|command):/i.test(h)));
      assert.deepEqual(inside.dataPaths, [], "model output cannot create file links with data-path");
      // Raw HTML is shown as text, not dropped silently.
      assert.match(inside.text, /<script>window\.__pwned=1<\/script>/);
      assert.match(inside.text, /tracker/);

      // Click everything in the message except http(s) links (in VS Code, the workbench opens those
      // after asking; on this test page a click would navigate the page itself).
      for (const link of await message.locator('a:not([href^="http"]), b, div').all()) await link.click({ trial: false, timeout: 2000 }).catch(() => undefined);
      for (const link of await message.locator("a").all()) await link.hover().catch(() => undefined);
      await chat.quiet();

      assert.equal(await chat.page.evaluate(() => window.__pwned), undefined, "window.__pwned stayed undefined");
      assert.equal(chat.page.url(), `${chat.origin}/index.html`, "the page did not navigate");
      const violations = await chat.page.evaluate(() => window.__cspViolations);
      assert.deepEqual(violations, [], "no CSP violation was needed to stop anything");
      const unexpected = chat.requestedUrls.filter(
        (u) => !/\/(index\.html|webview\.(js|css)(\.map)?|fake-vscode\.js|theme-[a-z-]+\.css|codicon\.ttf\?[0-9a-f]+)$/.test(u),
      );
      assert.deepEqual(unexpected, [], "nothing else was fetched");
      assert.deepEqual(await chat.postedOf("editor/openFile"), [], "no file was opened");
      await chat.assertClean();
    });
  }

  it("keeps user text as plain text", async () => {
    await chat.events(new Script().start().user('<img src=x onerror="window.__pwned=1"> **not bold**').take());
    const user = chat.page.locator(".user .user-text");
    assert.equal(await user.innerText(), '<img src=x onerror="window.__pwned=1"> **not bold**');
    assert.equal(await user.locator("img, strong").count(), 0);
    await chat.quiet();
    assert.equal(await chat.page.evaluate(() => window.__pwned), undefined);
    await chat.assertClean();
  });
});
