// A secret store in memory for unit tests: VS Code's SecretStorage as the stores of MCP tokens
// (src/core/mcp/oauth.ts) and provider sign-ins (src/host/providers/sign-in.ts) use it.
import type { SecretStore } from "../../src/core/mcp/oauth";

export class MapSecrets implements SecretStore {
  readonly map = new Map<string, string>();
  async get(key: string) {
    return this.map.get(key);
  }
  async store(key: string, value: string) {
    this.map.set(key, value);
  }
  async delete(key: string) {
    this.map.delete(key);
  }
}
