// Show Model Context says which tools the request declared, which it only listed by name (MCP
// tools on demand), which declarations were cut to the per-tool cap, and that lean mode was on.
import assert from "node:assert/strict";
import type { Message } from "@earendil-works/pi-ai";
import type { RequestCapture } from "../../../src/core/context/chat-context";
import { renderModelContext } from "../../../src/core/context/model-context-report";
import { boundedDeclaration, MCP_TOOL_DESCRIPTION_CHARS } from "../../../src/core/mcp/tools";

describe("Show Model Context: the tools of the request", () => {
  it("names the declared tools, the listed-only ones, the cut declarations, and lean mode", () => {
    const cut = boundedDeclaration({ name: "big", description: "d".repeat(MCP_TOOL_DESCRIPTION_CHARS + 10), inputSchema: { type: "object" } }, "srv");
    const messages: Message[] = [
      {
        role: "system",
        content: "prompt",
        toolsAdded: [
          { name: "read_file", description: "Read.", parameters: { type: "object" } },
          { name: "tool_search", description: "Load.", parameters: { type: "object" } },
          { name: "mcp__srv__big", description: cut.description, parameters: cut.parameters },
        ],
        timestamp: 0,
      } as Message,
      { role: "user", content: "hi", timestamp: 1 },
    ];
    const capture: RequestCapture = {
      chatId: "c",
      sentAt: 0,
      model: { provider: "p", id: "m", api: "openai-completions", contextWindow: 8_192 },
      messages,
      listedTools: ["mcp__srv__small", "mcp__srv__other"],
      lean: true,
      view: { transcriptMessages: 2, summarized: 0, trimmed: 0 },
    };
    const doc = renderModelContext(capture, [], "T");
    const section = doc.slice(doc.indexOf("## Tools in this request"), doc.indexOf("## System prompt"));
    assert.match(section, /Lean mode: a short system prompt and the essential tools only/);
    assert.match(section, /Declared \(3\): `read_file`, `tool_search`, `mcp__srv__big`\./);
    assert.match(section, /Only listed by name, loaded with `tool_search` when needed \(2\): `mcp__srv__small`, `mcp__srv__other`\./);
    assert.match(
      section,
      new RegExp(`Declarations cut to the per-tool cap:\\n- \`mcp__srv__big\`: description cut from ${MCP_TOOL_DESCRIPTION_CHARS + 10} characters`),
    );
  });
});
