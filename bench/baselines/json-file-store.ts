// BASELINE (not Pi Chat): the "one JSON file per chat" store many chat extensions use. The chat is
// kept in memory and every save writes the whole chat again: O(chat size) per message.
// Generous to the baseline: no read-before-write, no temp file + rename, no fsync, no pretty-printing.
import { promises as fs } from "node:fs";
import type { AgentMessage } from "@earendil-works/pi-agent-core";

export class JsonFileChatStore {
  private readonly messages: AgentMessage[];

  constructor(
    private readonly file: string,
    messages: readonly AgentMessage[],
  ) {
    this.messages = [...messages];
  }

  async save(message: AgentMessage): Promise<void> {
    this.messages.push(message);
    await fs.writeFile(this.file, JSON.stringify({ version: 1, messages: this.messages }));
  }

  /** Restore: read the file and parse it. */
  static async load(file: string): Promise<AgentMessage[]> {
    return (JSON.parse(await fs.readFile(file, "utf8")) as { messages: AgentMessage[] }).messages;
  }
}
