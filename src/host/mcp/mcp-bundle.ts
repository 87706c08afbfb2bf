// The entry of out/mcp.js: pi-mcp, the server lifecycle and tool wrapping (src/core/mcp/),
// required by host-mcp.ts when a chat first needs tools or the user opens "MCP Servers".
export * from "../../core/mcp";
