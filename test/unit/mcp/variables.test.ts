// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration files hold ${…} variables literally.
// Variables in MCP definitions: ${env:X}, pi's ${X}, ${workspaceFolder}, ${input:id} (asked once
// per id by the host); a missing value stops the server with a reason naming it.
import assert from "node:assert/strict";
import { parseVsCodeMcpJson } from "../../../src/core/mcp/config";
import { inputIds, McpVariableError, resolveTransport, resolveVariables } from "../../../src/core/mcp/variables";

describe("MCP variables", () => {
  const sources = { env: { HOME: "/home/u", TOKEN: "t0k" }, workspaceFolder: "/ws", input: async (id: string) => (id === "known" ? "secret" : undefined) };

  it("resolves env, pi-style, workspace and input variables", async () => {
    assert.equal(await resolveVariables("${env:HOME}/x ${TOKEN} ${workspaceFolder} ${input:known}", sources), "/home/u/x t0k /ws secret");
    assert.equal(await resolveVariables("no variables", sources), "no variables");
  });

  it("a variable without a value is an error that names it", async () => {
    await assert.rejects(resolveVariables("${env:NOPE}", sources), (e: unknown) => e instanceof McpVariableError && /NOPE/.test(e.message));
    await assert.rejects(resolveVariables("${input:unknown}", sources), /\$\{input:unknown\}/);
    await assert.rejects(resolveVariables("${workspaceFolder}", { ...sources, workspaceFolder: undefined }), /no folder is open/);
  });

  it("resolves every part of a transport and lists the inputs it needs", async () => {
    const [server] = parseVsCodeMcpJson(
      JSON.stringify({ servers: { h: { type: "http", url: "http://127.0.0.1/${env:HOME}", headers: { Authorization: "Bearer ${input:known}" } } } }),
      "f",
      "user",
    ).servers;
    assert.deepEqual(inputIds(server!), ["known"]);
    assert.deepEqual(await resolveTransport(server!, sources), { type: "http", url: "http://127.0.0.1//home/u", headers: { Authorization: "Bearer secret" } });
  });
});
