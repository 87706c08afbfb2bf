// How a chat's messages are saved and shown: each final message once, as the next node of the
// chat's tree (without the keys in use), a user prompt marked as a checkpoint, and a new fork's
// switcher sent to the view. The session's own messages (notices, repairs) come in through append.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import { backgroundEndedNoticeText, unendedBackgroundStarts } from "../shell/background";
import type { LocalNoticeMessage } from "../messages";
import { turnStart, type ChatBranches } from "./branching";
import type { ChatPath } from "./chat-path";
import type { ChatSessionOptions } from "./types";

export interface PersistenceDeps {
  options: Pick<ChatSessionOptions, "persist" | "checkpoints" | "log" | "redactor">;
  path: ChatPath;
  branches: ChatBranches;
  emit(event: ChatEvent): void;
  /** The system message a new chat starts with (prompt and the tool declarations of this run). */
  systemMessage(): AgentMessage | undefined;
}

export class SessionPersistence {
  private readonly persisted = new WeakSet<object>();

  /** `saved`: the messages already on disk (a restored chat's). */
  constructor(
    private readonly deps: PersistenceDeps,
    saved: readonly AgentMessage[],
  ) {
    for (const m of saved) this.persisted.add(m);
  }

  /** A message as it is saved: without the keys in use. */
  readonly redactMessage = (message: AgentMessage): AgentMessage => (this.deps.options.redactor ? this.deps.options.redactor.deep(message) : message);

  /** Adds a message of the session's own (a notice, a repair) to the transcript: saved and shown. */
  async append(message: AgentMessage): Promise<void> {
    if (message.role !== "system") await this.ensureSystemMessage();
    this.deps.path.add(message);
    await this.persistAndShow(message);
  }

  async persistAndShow(message: AgentMessage): Promise<void> {
    this.deps.emit({ type: "message/start", message });
    await this.persistOnce(message);
    this.deps.emit({ type: "message/end", message });
  }

  /** Messages of the path not saved yet (a new chat's system message once the agent exists): saved and shown. */
  async persistUnsaved(): Promise<void> {
    for (const m of this.deps.path.messages) if (!this.persisted.has(m)) await this.persistAndShow(m);
  }

  async persistOnce(message: AgentMessage): Promise<void> {
    if (this.persisted.has(message)) return;
    this.persisted.add(message);
    const { options, branches } = this.deps;
    const parentId = branches.leafId;
    const saved = this.redactMessage(message);
    const id = await options.persist(saved, parentId, branches.newPathSummary(parentId, this.redactMessage, saved));
    const forked = branches.added(id, parentId, message);
    // Each prompt (and each queued follow-up or steer, when it is taken) is a checkpoint.
    if (message.role === "user") await options.checkpoints?.mark(id).catch((e: unknown) => options.log?.(`checkpoint not saved: ${String(e)}`));
    // A new sibling (the first message of an edit or a retry) gets a switcher. A turn that starts
    // with attachments shows it on its prompt, so that waits for the prompt.
    if (message.role === "fileAttachment") return;
    const messages = this.deps.path.messages;
    const index = messages.lastIndexOf(message);
    if (index === -1) return;
    const start = turnStart(messages, index);
    if (forked || (start < index && branches.forks(messages.slice(0, start + 1), start).length > 0)) this.emitForks(start);
  }

  emitForks(from: number): void {
    this.deps.emit({ type: "branch/forks", from, forks: this.deps.branches.forks(this.deps.path.messages, from) });
  }

  /**
   * A chat's first saved message is its system message (prompt and tool declarations), as pi's
   * Agent would make it: then a `!cmd` or a setup error saved before the first model call still
   * comes after it, and the tree's path is the agent's message order.
   */
  async ensureSystemMessage(): Promise<void> {
    const { path, branches } = this.deps;
    if (!branches.isEmpty || path.messages.some((m) => m.role === "system")) return;
    const system = this.deps.systemMessage();
    if (!system) return;
    path.putFirst(system);
    await this.persistAndShow(system);
  }

  /**
   * A restored chat says which background commands ended with the window that ran them (once: the
   * notice is saved). One after the other: each is saved as the child of the one before.
   */
  noteUnendedBackground(): void {
    let saving = Promise.resolve();
    for (const stale of unendedBackgroundStarts(this.deps.path.messages)) {
      const notice: LocalNoticeMessage = {
        role: "localNotice",
        level: "info",
        text: backgroundEndedNoticeText(stale.id, stale.command),
        backgroundId: stale.id,
        timestamp: Date.now(),
      };
      this.deps.path.add(notice);
      saving = saving.then(() => this.persistOnce(notice)).catch((error) => this.deps.options.log?.(`could not save a notice: ${String(error)}`));
    }
  }
}
