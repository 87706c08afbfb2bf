// A chat's path: the whole transcript of the branch shown (what is saved, shown, branched and
// measured), and what the chat's pi Agent holds of it. After a compaction the agent holds the
// path's projection (agentProjection), as pi coding-agent's agent holds its session's: the
// request is the same, and pi-agent-core's per-prompt copies and scans follow what the model
// gets, not the chat's length (P21). docs/conversation-layers.md says why.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { agentProjection, summarizedBy } from "../context/compaction";

/** The part of pi's Agent the path keeps in step. */
export interface ProjectionHolder {
  state: { messages: AgentMessage[] };
}

export class ChatPath {
  private readonly path: AgentMessage[];
  private holder: ProjectionHolder | undefined;
  /** How many messages each summary stands for (a fact of the summary: its ancestors never change). */
  private readonly summarizedCounts = new WeakMap<AgentMessage, number>();

  constructor(messages: AgentMessage[]) {
    this.path = messages;
  }

  get messages(): readonly AgentMessage[] {
    return this.path;
  }

  /** What an agent made now starts from. */
  projection(): AgentMessage[] {
    return agentProjection(this.path);
  }

  /**
   * From now on the agent follows the path. pi's Agent puts a system message first when the
   * path has none: the path takes it too.
   */
  hold(holder: ProjectionHolder): void {
    this.holder = holder;
    const first = holder.state.messages[0];
    if (first && first !== this.path[0] && first.role === "system") this.path.unshift(first);
  }

  /** A message of the session's own joins the path, and what the agent holds. */
  add(message: AgentMessage): void {
    this.path.push(message);
    if (!this.holder) return;
    // A new summary changes what the agent holds; any other message is one more at its end.
    this.holder.state.messages = message.role === "compactionSummary" ? agentProjection(this.path) : [...this.holder.state.messages, message];
  }

  /** The agent added a message to what it holds (its message_end): the path has it too. */
  addedByAgent(message: AgentMessage): void {
    if (this.path[this.path.length - 1] !== message) this.path.push(message);
  }

  /** A new chat's system message goes first. */
  putFirst(system: AgentMessage): void {
    this.path.unshift(system);
    this.project();
  }

  /** The path keeps its first `keep` messages and goes on with `suffix` (changed in place: a switch costs the changed part). */
  set(keep: number, suffix: readonly AgentMessage[]): void {
    this.path.length = keep;
    for (const message of suffix) this.path.push(message);
    this.project();
  }

  /** The messages of the path that a request's summary stands for (the view has it first, after the system messages). */
  summarizedIn(view: readonly AgentMessage[]): number {
    const summary = view.find((m) => m.role === "compactionSummary");
    if (!summary) return 0;
    let count = this.summarizedCounts.get(summary);
    if (count === undefined) {
      const index = this.path.lastIndexOf(summary);
      if (index === -1) return 0;
      count = summarizedBy(this.path, index);
      this.summarizedCounts.set(summary, count);
    }
    return count;
  }

  private project(): void {
    if (this.holder) this.holder.state.messages = agentProjection(this.path);
  }
}
