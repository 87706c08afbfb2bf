// What an MCP tool may declare and return, within caps: a huge description is cut, a schema too
// large or nested 3,000 deep is replaced by "any object", each saying so; an image that is not a
// whole PNG/JPEG/GIF/WebP is left out with the reason, as an attached one would be.
import * as assert from "node:assert/strict";
import type { McpClient, Tool } from "@earendil-works/pi-mcp";
import { boundedDeclaration, MCP_TOOL_DESCRIPTION_CHARS, wrapMcpTools } from "../../../src/core/mcp/tools";

describe("MCP tool declarations and results within caps", () => {
  it("a 3 M character description is cut and says so; an ordinary tool is unchanged", () => {
    const huge = boundedDeclaration({ name: "t", description: "d".repeat(3_000_000), inputSchema: { type: "object" } } as Tool, "s");
    assert.ok(huge.description.length < MCP_TOOL_DESCRIPTION_CHARS + 200, String(huge.description.length));
    assert.match(huge.description, /\[Pi Chat: description cut from 3000000 characters\]/);
    const plain = boundedDeclaration({ name: "t", description: "Echo.", inputSchema: { type: "object", properties: { m: { type: "string" } } } } as Tool, "s");
    assert.equal(plain.description, 'Echo. (MCP server "s")');
    assert.ok(JSON.stringify(plain.parameters).includes('"m"'));
  });

  it("a schema nested 3,000 deep or of 100,000 characters becomes any object, saying why, without throwing", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 3000; i++) deep = { type: "object", properties: { x: deep } };
    const nested = boundedDeclaration({ name: "t", inputSchema: deep } as unknown as Tool, "s");
    assert.match(nested.description, /input schema left out: nested deeper than/);
    assert.ok(JSON.stringify(nested.parameters).length < 200);
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: "string" }])) };
    assert.match(boundedDeclaration({ name: "t", inputSchema: wide } as unknown as Tool, "s").description, /input schema left out: \d+ characters/);
  });

  it("an image result that is not a real image is left out with the reason; a real one goes through", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const client = {
      callTool: async () => ({
        content: [
          { type: "image", data: Buffer.from("not an image at all").toString("base64"), mimeType: "image/png" },
          { type: "image", data: png, mimeType: "image/jpeg" },
        ],
      }),
    } as unknown as McpClient;
    const [wrapped] = wrapMcpTools([{ name: "pic", inputSchema: { type: "object" } } as Tool], {
      server: "s",
      identity: "id",
      client,
      isTaken: () => false,
      acceptsImages: () => true,
    });
    const result = await wrapped!.tool.execute("c1", {});
    const kinds = result.content.map((c) => (c.type === "image" ? `image ${c.mimeType}` : c.text));
    assert.equal(kinds.length, 2);
    assert.match(String(kinds[0]), /^\[image left out: An image from the MCP server is not a PNG, JPEG, GIF or WebP image/);
    assert.equal(kinds[1], "image image/png", "the real image goes, with the type its bytes say");
  });
});
