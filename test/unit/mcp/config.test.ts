// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration files hold ${…} variables literally.
// MCP configuration: VS Code's mcp.json and pi's mcpServers files parse to one shape, mistakes are
// reported (never thrown), a later file's server replaces an earlier one of the same name, and the
// text the user agrees to names everything that decides what runs.
import assert from "node:assert/strict";
import { jsonNesting, mergeMcpConfigs, parsePiMcpJson, parseVsCodeMcpJson } from "../../../src/core/mcp/config";
import { canonicalDefinition, changedFields, definitionLines, serverIdentity } from "../../../src/core/mcp/identity";

describe("MCP configuration files", () => {
  it("reads VS Code's format: stdio and http servers, inputs, comments and trailing commas", () => {
    const file = parseVsCodeMcpJson(
      `{
        // a comment, as VS Code allows
        "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],
        "servers": {
          "fs": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"], "env": { "A": "\${env:HOME}" } },
          "docs": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
        },
      }`,
      ".vscode/mcp.json",
      "workspace",
    );
    assert.deepEqual(file.errors, []);
    assert.deepEqual(
      file.servers.map((s) => [s.name, s.scope, s.transport.type]),
      [
        ["fs", "workspace", "stdio"],
        ["docs", "workspace", "http"],
      ],
    );
    assert.deepEqual(file.servers[0]!.transport, {
      type: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}"],
      env: { A: "${env:HOME}" },
    });
    assert.deepEqual(file.inputs, [{ id: "token", file: ".vscode/mcp.json", description: "API token", password: true }]);
  });

  it("reads pi's mcpServers format, with enabled, description, timeout and project overrides", () => {
    const file = parsePiMcpJson(
      JSON.stringify({
        mcpServers: {
          everything: { command: "node", args: ["server.js"], description: "Reference server", timeout: 5 },
          off: { url: "http://localhost:1/mcp", enabled: false },
          userOne: { enabled: false },
        },
      }),
      "~/.pi/agent/mcp.json",
      "user",
    );
    assert.deepEqual(file.errors, []);
    assert.equal(file.servers[0]!.description, "Reference server");
    assert.equal(file.servers[0]!.timeoutSeconds, 5);
    assert.equal(file.servers[1]!.enabled, false);
    assert.deepEqual(file.overrides, [{ name: "userOne", enabled: false, scope: "user" }]);
  });

  it("keeps pi's oauth field of an http server (checked by pi-mcp), and refuses a wrong one", async () => {
    const file = parsePiMcpJson(
      JSON.stringify({
        mcpServers: {
          tracker: {
            url: "https://tracker.example/mcp",
            oauth: { clientId: "pi-chat", callbackPort: 8765, scope: "read write", clientSecret: "${input:secret}" },
          },
          plain: { url: "https://plain.example/mcp" },
          broken: { url: "https://broken.example/mcp", oauth: { callbackPort: "eighty" } },
        },
      }),
      "/home/u/.pi/agent/mcp.json",
      "user",
    );
    const tracker = file.servers.find((s) => s.name === "tracker")!.transport;
    assert.deepEqual(tracker, {
      type: "http",
      url: "https://tracker.example/mcp",
      headers: {},
      oauth: { clientId: "pi-chat", callbackPort: 8765, scope: "read write", clientSecret: "${input:secret}" },
    });
    assert.equal("oauth" in file.servers.find((s) => s.name === "plain")!.transport, false);
    assert.ok(!file.servers.some((s) => s.name === "broken"));
    assert.match(file.errors.join("\n"), /broken/);
    // The client secret may come from an input, asked like the others.
    const { inputIds, resolveTransport } = await import("../../../src/core/mcp/variables");
    const def = file.servers.find((s) => s.name === "tracker")!;
    assert.deepEqual(inputIds(def), ["secret"]);
    const resolved = await resolveTransport(def, { env: {}, input: async () => "s3cret" });
    assert.equal(resolved.type === "http" ? resolved.oauth?.clientSecret : undefined, "s3cret");
  });

  it("reports broken files and entries instead of throwing", () => {
    assert.match(parsePiMcpJson("{ not json", "a.json", "user").errors[0]!, /a\.json: not valid JSON/);
    assert.match(parseVsCodeMcpJson("[]", "b.json", "user").errors[0]!, /must hold a JSON object/);
    const bad = parseVsCodeMcpJson(
      JSON.stringify({ servers: { "a b": { command: "x" }, sse: { type: "sse", url: "http://x" }, none: {} } }),
      "c.json",
      "workspace",
    );
    assert.equal(bad.servers.length, 0);
    assert.equal(bad.errors.length, 3, bad.errors.join("\n"));
    assert.ok(bad.errors.some((e) => /type "sse"/.test(e)));
  });

  it("a later file replaces a server of the same name; overrides switch servers off; clashing namespaces are refused", () => {
    const user = parsePiMcpJson(JSON.stringify({ mcpServers: { shared: { command: "user-cmd" }, "a-b": { command: "x" } } }), "user.json", "user");
    const project = parsePiMcpJson(JSON.stringify({ mcpServers: { a_b: { command: "y" }, shared: { enabled: false } } }), ".pi/mcp.json", "workspace");
    const vscode = parseVsCodeMcpJson(JSON.stringify({ servers: { shared: { command: "ws-cmd" } } }), ".vscode/mcp.json", "workspace");
    const merged = mergeMcpConfigs([user, project, vscode]);
    const shared = merged.servers.find((s) => s.name === "shared")!;
    assert.equal(shared.scope, "workspace");
    assert.equal(shared.transport.type === "stdio" && shared.transport.command, "ws-cmd");
    assert.equal(shared.enabled, false, "the project override applies");
    assert.deepEqual(merged.servers.map((s) => s.name).sort(), ["a-b", "shared"], "a_b would share a-b's tool namespace");
    assert.ok(merged.errors.some((e) => /"a-b" and "a_b"/.test(e)));
  });

  it("the consent text shows every field of the definition, with variables unresolved, and marks what changed", () => {
    const [server] = parsePiMcpJson(
      JSON.stringify({ mcpServers: { s: { command: "npx", args: ["-y", "pkg", "it's here"], env: { TOKEN: "${input:token}" }, cwd: "tools" } } }),
      "f",
      "workspace",
    ).servers;
    assert.deepEqual(definitionLines(server!), ["command: npx", 'args: ["-y","pkg","it\'s here"]', 'env: {"TOKEN":"${input:token}"}', "cwd: tools"]);
    const [http] = parsePiMcpJson(JSON.stringify({ mcpServers: { h: { url: "https://a.example/mcp" } } }), "f", "workspace").servers;
    const [withOAuth] = parsePiMcpJson(
      JSON.stringify({
        mcpServers: { h: { url: "https://a.example/mcp", oauth: { authServerMetadataUrl: "https://evil.example/.well-known/oauth-authorization-server" } } },
      }),
      "f",
      "workspace",
    ).servers;
    const changed = changedFields(canonicalDefinition(http!), canonicalDefinition(withOAuth!));
    assert.deepEqual(changed, ["oauth"], "adding oauth is a change");
    assert.match(definitionLines(withOAuth!, changed).join("\n"), /\(changed\) oauth: .*evil\.example/);
  });

  it("an identity is scope, file, name and the whole definition: the same name elsewhere or changed is another server", () => {
    const def = (file: string, scope: "user" | "workspace", extra: object = {}) =>
      parsePiMcpJson(JSON.stringify({ mcpServers: { s: { command: "node", args: ["a.js"], ...extra } } }), file, scope).servers[0]!;
    const user = serverIdentity(def("/home/u/.pi/agent/mcp.json", "user"));
    assert.equal(user, serverIdentity(def("/home/u/.pi/agent/mcp.json", "user")), "stable");
    assert.notEqual(user, serverIdentity(def("/repo/.pi/mcp.json", "workspace")), "a workspace's server of the same name");
    assert.notEqual(user, serverIdentity(def("/home/u/.pi/agent/mcp.json", "user", { env: { X: "1" } })), "a changed definition");
  });

  it("a workspace's override switches the user's server off, never on; a workspace server of the user's name says it shadows it", () => {
    const user = parsePiMcpJson(
      JSON.stringify({ mcpServers: { off: { command: "u", enabled: false }, on: { command: "v" }, named: { command: "w" } } }),
      "user.json",
      "user",
    );
    const project = parsePiMcpJson(
      JSON.stringify({ mcpServers: { off: { enabled: true }, on: { enabled: false }, named: { command: "repo-cmd" } } }),
      "/repo/.pi/mcp.json",
      "workspace",
    );
    const merged = mergeMcpConfigs([user, project]);
    const byName = (n: string) => merged.servers.find((s) => s.name === n)!;
    assert.equal(byName("off").enabled, false, "the workspace cannot switch on what the user switched off");
    assert.ok(merged.errors.some((e) => /"off".*stays off/.test(e)));
    assert.equal(byName("on").enabled, false, "narrowing is fine");
    assert.equal(byName("named").shadowsUserServer, "user.json");
    // The user's own later file may switch on.
    const userOn = parsePiMcpJson(JSON.stringify({ mcpServers: { off: { enabled: true } } }), "user2.json", "user");
    assert.equal(mergeMcpConfigs([user, userOn]).servers.find((s) => s.name === "off")!.enabled, true);
  });

  it("a file nested deeper than the cap is refused before parsing; strings and comments do not count", () => {
    assert.equal(jsonNesting('{"a": "[[[[{{{", /* [[[[ */ "b": [1]} // {{{{'), 2);
    const deep = parsePiMcpJson(`{"mcpServers":{"d":{"command":"x","env":${"[".repeat(3000)}${"]".repeat(3000)}}}}`, "f", "workspace");
    assert.deepEqual(deep.servers, []);
    assert.match(deep.errors[0] ?? "", /nested deeper than 32 levels/);
  });
});
