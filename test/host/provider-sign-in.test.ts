// Sign-in to a provider, in the real extension host, through the commands a user runs. The flow is
// one registered for this test only (test/support/test-sign-in-flow.ts, through the `testFlows`
// seam; the product's flows are pi-ai's) against the local authorization server
// (test/support/oauth-server.ts): the page named before the browser opens, the loopback callback,
// the credentials in SecretStorage only, the token on the provider's requests (a local server the
// user allowed as OpenRouter's URL), refreshed when the stored sign-in expired, redacted when the
// provider quotes it, revoked and deleted by Sign Out; a flow asking to open a page that is not
// https never reaches the browser.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { SignInFlow } from "../../src/host/providers/sign-in";
import { type OpenAIServer, startOpenAIServer } from "../support/openai-server";
import { type OAuthTestServer, startOAuthTestServer } from "../support/oauth-server";
import { filesHolding, filesUnder } from "../support/temp";
import { testSignInFlow } from "../support/test-sign-in-flow";
import { cloudItems } from "../../src/host/models/picker-groups";
import { startChatView, waitFor, workspaceUri } from "./helpers";

const PROVIDER = "openrouter";
/** An OpenRouter model on the OpenAI wire format, which the local server speaks. */
const MODEL = "~deepseek/deepseek-flash-latest";
const SECRET = `piChat.signIn.${PROVIDER}`;

describe("provider sign-in (a flow registered for the test, a local authorization server)", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let as: OAuthTestServer;
  const opened: string[] = [];
  const confirmed: string[] = [];
  const config = () => vscode.workspace.getConfiguration("piChat");
  const global = vscode.ConfigurationTarget.Global;
  let askConsent: PiChatTestApi["consent"]["ask"] | undefined;
  const secrets = () => (api.signIns as unknown as { secrets: vscode.SecretStorage }).secrets;

  before(async () => {
    ({ server, api } = await startChatView());
    as = await startOAuthTestServer();
    api.signIns.testFlows.set(PROVIDER, testSignInFlow(as.origin));
    api.signIns.confirmOpen = async (title, page) => {
      confirmed.push(`${title} ${page.origin}`);
      return true;
    };
    // The browser: it opens what the product hands to vscode.env.openExternal, as VS Code's opener does for a Uri.
    api.signIns.openExternal = async (uri) => {
      opened.push(uri.toString(true));
      void as.browse(encodeURI(uri.toString(true))).catch((error: unknown) => console.error(`the test browser failed: ${String(error)}`));
      return true;
    };
    // No title requests after first answers: each request here is one the test scripts.
    await config().update("titleFromModel", "never", global);
    askConsent = api.consent.ask;
    api.consent.ask = async () => true;
    await api.secrets.delete(PROVIDER);
    await secrets().delete(SECRET);
  });

  after(async () => {
    api.signIns.testFlows.clear();
    if (askConsent) api.consent.ask = askConsent;
    await secrets()?.delete(SECRET);
    await api?.consent.forgetAll();
    await config().update("titleFromModel", undefined, global);
    await config().update("provider", undefined, global);
    await config().update("model", undefined, global);
    await config().update("baseUrl", `${server.url}/v1`, global);
    await as?.close();
    await server?.close();
  });

  it("Sign In names the page, opens it, takes the callback and keeps the sign-in in SecretStorage; the provider counts as configured", async () => {
    assert.equal(await api.signIns.isSignedIn(PROVIDER), false);
    const done = await vscode.commands.executeCommand<boolean>("piChat.signIn", PROVIDER);
    assert.equal(done, true);
    assert.deepEqual(confirmed, [`OpenRouter ${as.origin}`], "the page was named before the browser opened");
    assert.equal(opened.length, 1);
    assert.ok(opened[0]?.startsWith(`${as.origin}/authorize?`));
    assert.deepEqual(as.seen.grants, ["authorization_code"], "the code was exchanged with its PKCE verifier");
    const kept = await secrets().get(SECRET);
    assert.ok(kept?.includes(as.issued.accessTokens.at(-1)!), "kept under the provider's id");
    assert.equal(await api.signIns.isSignedIn(PROVIDER), true);
    await api.host.models.refreshKeys();
    assert.equal(api.host.models.setupNeeded({ provider: PROVIDER, model: "" }), undefined, "no key is missing: the sign-in counts");
  });

  it("the picker offers Sign in to X… beside the key row; a signed-in provider lists its models as configured", () => {
    const offers = (p: string) => api.signIns.offers(p);
    const models = () => [{ id: "m1", name: "Model One" }];
    const before = cloudItems(new Set(), models, () => false, { offers, signedIn: new Set() });
    const keyRow = before.cloud.findIndex((i) => i.action === "setupProvider" && i.provider === "xai");
    assert.ok(keyRow >= 0);
    assert.deepEqual(
      { label: before.cloud[keyRow + 1]?.label, action: before.cloud[keyRow + 1]?.action },
      { label: "$(sign-in) Sign in to xAI…", action: "signIn" },
      "right after the key row",
    );
    const openaiRow = before.cloud.find((i) => i.action === "signIn" && i.provider === "openai");
    assert.equal(openaiRow?.description, "Sign in with ChatGPT");
    assert.ok(!before.cloud.some((i) => i.action === "signIn" && i.provider === "groq"), "no row where pi-ai has no flow");
    const after = cloudItems(new Set([PROVIDER]), models, () => false, { offers, signedIn: new Set([PROVIDER]) });
    assert.ok(after.configured.some((i) => i.label === "OpenRouter (signed in)"));
    assert.ok(after.configured.some((i) => i.provider === PROVIDER && i.action === "model"));
    assert.ok(!after.cloud.some((i) => i.provider === PROVIDER), "no key or sign-in row once signed in");
  });

  it("a prompt carries the token; an expired sign-in is refreshed first; a token the provider quotes is redacted, and kept nowhere", async () => {
    await config().update("provider", PROVIDER, global);
    await config().update("model", MODEL, global);
    await config().update("baseUrl", `${server.url}/v1`, global);
    await vscode.commands.executeCommand("piChat.newChat");
    const posts = () => server.requests.filter((r) => r.method === "POST");
    const first = posts().length;
    server.push(() => ({ text: "Hello from the signed-in provider." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(posts()[first]?.authorization, `Bearer ${as.issued.accessTokens.at(-1)}`, "the signed-in token, not a key");

    // The stored sign-in expired: pi-ai's refresh runs before the next request.
    const stored = JSON.parse((await secrets().get(SECRET))!) as { expires: number };
    await secrets().store(SECRET, JSON.stringify({ ...stored, expires: 0 }));
    const second = posts().length;
    server.push(() => ({ text: "Still here." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "again" });
    await api.screen.currentSession.waitForIdle();
    assert.deepEqual(as.seen.grants, ["authorization_code", "refresh_token"], "one refresh, no new sign-in");
    assert.equal(posts()[second]?.authorization, `Bearer ${as.issued.accessTokens.at(-1)}`, "the refreshed token");
    assert.equal(opened.length, 1, "no browser for a refresh");

    // The provider quotes the token in its error: the notice, the log and the webview show it redacted.
    server.failNext(401, { error: { message: `Incorrect API key provided: ${as.issued.accessTokens.at(-1)}.`, type: "invalid_request_error" } });
    await api.view.receive({ type: "chat/send", v: 1, text: "third" });
    await api.screen.currentSession.waitForIdle();
    await waitFor("the error to be in the chat", () => JSON.stringify(api.screen.currentSession.messages).includes("Incorrect API key provided"));
    await waitFor("the view to show it redacted", () => /Incorrect API key provided: \[redacted\]/.test(JSON.stringify(api.view.posted ?? [])));

    const tokens = [...as.issued.accessTokens, ...as.issued.refreshTokens];
    for (const t of tokens) {
      assert.ok(!api.logLines.some((l) => l.includes(t)), "not in the log");
      assert.ok(!JSON.stringify(api.view.posted ?? []).includes(t), "not in the webview");
    }
    const userDir = path.resolve(api.storageDir, "../../..");
    const files = [...filesUnder(api.storageDir), path.join(userDir, "settings.json")];
    assert.ok(
      files.some((f) => f.includes(`${path.sep}chats${path.sep}`)),
      `the chats were searched: ${files.length} files`,
    );
    assert.deepEqual(filesHolding(files, tokens), [], "files holding a token");
  });

  it("a flow asking to open a page that is not https never reaches the browser", async () => {
    const hostile: SignInFlow = {
      name: "hostile",
      async login(interaction) {
        interaction.notify({ type: "auth_url", url: "command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22echo%20pwned%5Cn%22%7D" });
        await new Promise((resolve) => interaction.signal.addEventListener("abort", resolve, { once: true }));
        throw new Error("Login cancelled");
      },
      refresh: async (c) => c,
      toAuth: async (c) => ({ apiKey: c.access }),
    };
    api.signIns.testFlows.set("xai", hostile);
    const openedBefore = opened.length;
    const confirmedBefore = confirmed.length;
    try {
      assert.equal(await vscode.commands.executeCommand<boolean>("piChat.signIn", "xai"), false);
    } finally {
      api.signIns.testFlows.delete("xai");
    }
    assert.equal(opened.length, openedBefore, "nothing opened");
    assert.equal(confirmed.length, confirmedBefore, "not even offered");
    const said = api.logLines.filter((l) => l.includes("sign-in to xai"));
    assert.ok(
      said.some((l) => /sign-in to xai failed: Pi Chat did not open the sign-in page: it is not an https:\/\/ address \(command:\)/.test(l)),
      said.join("\n"),
    );
    assert.equal(await api.signIns.isSignedIn("xai"), false);
  });

  it("a workspace's .vscode/settings.json cannot move the token to another server", async () => {
    const attacker = await startOpenAIServer();
    const workspaceModel = "~google/gemini-flash-latest";
    try {
      const settings = { "piChat.provider": PROVIDER, "piChat.baseUrl": `${attacker.url}/v1`, "piChat.model": workspaceModel };
      await vscode.workspace.fs.writeFile(workspaceUri(".vscode", "settings.json"), new TextEncoder().encode(JSON.stringify(settings)));
      // The model (an ordinary setting) shows VS Code has read the file.
      await waitFor("VS Code to read the workspace settings", () => config().get("model") === workspaceModel);
      await vscode.commands.executeCommand("piChat.newChat");
      const sent = server.requests.length;
      server.push(() => ({ text: "From the user's own server." }));
      await api.view.receive({ type: "chat/send", v: 1, text: "where does this go?" });
      await api.screen.currentSession.waitForIdle();
      assert.equal(attacker.requests.length, 0, "the workspace's server got nothing");
      assert.equal(server.requests[sent]?.authorization, `Bearer ${as.issued.accessTokens.at(-1)}`, "the token went to the user's allowed URL");
    } finally {
      await vscode.workspace.fs.delete(workspaceUri(".vscode", "settings.json")).then(undefined, () => undefined);
      await waitFor("VS Code to drop the workspace settings", () => config().get("model") !== workspaceModel);
      await attacker.close();
    }
  });

  it("Sign Out revokes the tokens and deletes the sign-in; the next prompt asks for a key", async () => {
    const refresh = as.issued.refreshTokens.at(-1)!;
    await vscode.commands.executeCommand("piChat.signOut", PROVIDER);
    assert.deepEqual(as.seen.revocations, [refresh]);
    assert.equal(await secrets().get(SECRET), undefined);
    assert.equal(await api.signIns.isSignedIn(PROVIDER), false);
    const before = server.requests.length;
    await api.view.receive({ type: "chat/send", v: 1, text: "after sign-out" });
    await api.screen.currentSession.waitForIdle();
    const last = api.screen.currentSession.messages.at(-1);
    assert.ok(last?.role === "localNotice" && /No API key for OpenRouter/.test(last.text), JSON.stringify(last));
    assert.equal(server.requests.length, before, "nothing was sent");
  });
});
