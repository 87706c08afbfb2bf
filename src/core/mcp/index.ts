// out/mcp.js: the MCP client side (pi-mcp, server lifecycle, tool wrapping, config parsing), loaded
// by the host adapter when a chat first needs tools or the user opens "MCP Servers", never at activation.
export { mergeMcpConfigs, parsePiMcpJson, parseVsCodeMcpJson } from "./config";
export { McpServers } from "./servers";
export { inputIds, resolveTransport } from "./variables";
export { MCP_OAUTH_SECRET_PREFIX, McpOAuthSecretStore, McpSignInCancelledError, McpSignInTimeoutError } from "./oauth";
