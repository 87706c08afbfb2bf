// Images through the real extension: the webview's prompt with an image reaches the local
// OpenAI-format server as an image part with exactly the attached bytes; a model without image
// input, an SVG and a text file named .png are refused with the reason and nothing is sent.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { HostMessage } from "../../src/shared/protocol";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { makePng, SVG_TEXT } from "../support/png";
import { sniffImage } from "../../src/shared/image-sniff";
import { startChatView, waitFor, workspaceUri } from "./helpers";

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64");

describe("images (extension host)", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const config = () => vscode.workspace.getConfiguration("piChat");

  before(async () => {
    ({ server, api } = await startChatView());
  });
  after(async () => {
    await config().update("imageInput", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });
  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  it("the request body holds the image part with exactly the attached bytes, and the view gets a reference", async () => {
    await config().update("imageInput", true, vscode.ConfigurationTarget.Global);
    const png = makePng(64, 48, 9);
    server.push(() => ({ text: "A blue gradient." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "What is in this screenshot?", images: [{ mimeType: "image/jpeg", data: b64(png) }] });
    const body = server.chatRequests().at(-1)!;
    const user = body.messages.filter((m) => m.role === "user").at(-1)!;
    assert.ok(Array.isArray(user.content));
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    assert.deepEqual(parts.find((p) => p.type === "text")?.text, "What is in this screenshot?");
    // The type comes from the bytes (a PNG), not from what the webview claimed.
    assert.equal(parts.find((p) => p.type === "image_url")?.image_url?.url, `data:image/png;base64,${b64(png)}`);

    const item = chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "user");
    assert.equal(item?.kind === "user" ? item.images?.length : 0, 1);
    const posted = JSON.stringify(api.view.posted);
    assert.ok(!posted.includes(b64(png).slice(0, 120)), "the image bytes are not posted to the webview");
    const snapshot = [...(api.view.posted as HostMessage[])].reverse().find((m) => m.type === "view/snapshot");
    assert.match(snapshot && snapshot.type === "view/snapshot" ? (snapshot.imageBase ?? "") : "", new RegExp(`/images/${api.screen.currentSession.id}$`));
  });

  it("read_file on a large workspace image: scaled in the extension's worker (out/image-scale.js) and sent as an image part", async () => {
    await config().update("imageInput", true, vscode.ConfigurationTarget.Global);
    const uri = workspaceUri("docs", "wide-screenshot.png");
    await vscode.workspace.fs.writeFile(uri, makePng(3000, 1200, 4));
    try {
      server.push(
        () => ({ toolCalls: [{ id: "call_img", name: "read_file", arguments: { path: "docs/wide-screenshot.png" } }] }),
        () => ({ text: "A wide screenshot." }),
      );
      await api.view.receive({ type: "chat/send", v: 1, text: "What does docs/wide-screenshot.png show?" });
      await waitFor("the answer after the tool", () =>
        server.chatRequests().some((r) => r.messages.some((m) => m.role === "tool" && m.tool_call_id === "call_img")),
      );
      const body = server.chatRequests().find((r) => r.messages.some((m) => m.role === "tool" && m.tool_call_id === "call_img"))!;
      const tool = body.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_img");
      assert.match(String(tool?.content), /^\[Image: docs\/wide-screenshot\.png, PNG, 3000×1200 px, .+; shown scaled to 2000×800 px \(PNG, .+\)\]$/);
      const url = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((p) => p.type === "image_url")?.image_url?.url ?? "";
      assert.deepEqual(sniffImage(Buffer.from(url.slice(url.indexOf(",") + 1), "base64")), { mimeType: "image/png", width: 2000, height: 800 });
    } finally {
      await vscode.workspace.fs.delete(uri);
    }
  });

  it("a model without image input: refused with the reason, nothing is sent", async () => {
    await config().update("imageInput", false, vscode.ConfigurationTarget.Global);
    const before = server.chatRequests().length;
    const lines = api.logLines.length;
    await api.view.receive({ type: "chat/send", v: 1, text: "look", images: [{ mimeType: "image/png", data: b64(makePng(8, 8)) }] });
    assert.equal(server.chatRequests().length, before, "no request went out");
    assert.match(api.logLines.slice(lines).join("\n"), /cannot see images, so nothing was sent.*piChat\.imageInput/);
    const snapshotStatus = api.host.snapshot();
    assert.equal(snapshotStatus.type === "view/snapshot" ? snapshotStatus.status.imageInput : undefined, false, "the view is told before sending");
  });

  it("an SVG and a text file named .png are not sent as images", async () => {
    await config().update("imageInput", true, vscode.ConfigurationTarget.Global);
    const before = server.chatRequests().length;
    const lines = api.logLines.length;
    await api.view.receive({ type: "chat/send", v: 1, text: "svg", images: [{ mimeType: "image/svg+xml", data: b64(SVG_TEXT) }] });
    await api.view.receive({ type: "chat/send", v: 1, text: "fake", images: [{ mimeType: "image/png", data: b64("I am text in a file named shot.png\n") }] });
    assert.equal(server.chatRequests().length, before);
    const log = api.logLines.slice(lines).join("\n");
    assert.match(log, /not a PNG, JPEG, GIF or WebP image .*SVG drawing, which is text/);
    assert.match(log, /not a PNG, JPEG, GIF or WebP image \(judged by its bytes, not its name\)\. Nothing was sent\./);
  });
});
