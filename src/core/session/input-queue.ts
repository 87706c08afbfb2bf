// What the user sends while a reply is still being written: follow-ups (delivered when the run
// would otherwise stop: pi's `followUp`) and steering (delivered right after the current tool
// calls, before the model's next step: pi's `steer`).
//
// This queue is the source of truth, so a chip can be removed before it is delivered: pi's queues
// only clear whole, so after each change they are cleared and filled again from here (with the
// session's own steered messages, the approval notices, put back first). A message reaches the
// transcript only when pi delivers it (its message_start), never when it is queued. Stop keeps the
// queue: pi's copies are withdrawn and the user sends or clears what is left.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { TextContent } from "@earendil-works/pi-ai";
import type { FileAttachmentMessage } from "../messages";
import type { QueuedInput } from "../../shared/protocol";
import type { StoredImageContent } from "../../shared/images";

/** The part of pi's Agent the queue drives. */
export interface AgentQueues {
  steer(message: AgentMessage): void;
  followUp(message: AgentMessage): void;
  clearSteeringQueue(): void;
  clearFollowUpQueue(): void;
}

interface Entry {
  view: QueuedInput;
  /** The attachments and the prompt, delivered together. */
  messages: AgentMessage[];
}

export type QueueKind = QueuedInput["kind"];

type Attachment = Omit<FileAttachmentMessage, "role" | "timestamp">;
/** The files and images a prompt goes with (the session's API speaks these). */
export type PromptAttachments = readonly Attachment[];
export type PromptImages = readonly StoredImageContent[];

/** The messages a prompt becomes: its attachments, then the user message (text, then the images exactly as attached). */
export function promptMessages(text: string, attachments: readonly Attachment[], images: readonly StoredImageContent[], now: number): AgentMessage[] {
  const content: (TextContent | StoredImageContent)[] = [
    ...(text !== "" || images.length === 0 ? [{ type: "text" as const, text }] : []),
    ...images.map((i) => ({ ...i })),
  ];
  return [
    ...attachments.map((a): FileAttachmentMessage => ({ ...a, role: "fileAttachment", ...(a.range ? { range: { ...a.range } } : {}), timestamp: now })),
    { role: "user", content, timestamp: now },
  ];
}

export class InputQueue {
  private entries: Entry[] = [];
  /** Messages the session itself steered (approval notices), not yet delivered. */
  private own: AgentMessage[] = [];
  private nextId = 1;
  private kept = false;

  constructor(
    private readonly agent: () => AgentQueues | undefined,
    private readonly changed: (items: QueuedInput[], kept: boolean) => void,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  get items(): QueuedInput[] {
    return this.entries.map((e) => e.view);
  }

  /** Queues a user input for the running reply. */
  add(kind: QueueKind, text: string, attachments: readonly Attachment[], images: readonly StoredImageContent[] = []): QueuedInput {
    const view: QueuedInput = {
      id: `q${this.nextId++}`,
      kind,
      text,
      attachments: attachments.map((a) => ({ path: a.path, ...(a.range ? { range: { ...a.range } } : {}) })),
      imageCount: images.length,
    };
    this.entries.push({ view, messages: promptMessages(text, attachments, images, Date.now()) });
    this.kept = false;
    this.sync();
    return view;
  }

  /** Removes a chip before it is delivered; false when it is gone already (delivered or removed). */
  remove(id: string): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.view.id !== id);
    if (this.entries.length === before) return false;
    if (this.entries.length === 0) this.kept = false;
    this.sync();
    return true;
  }

  /** The session's own steered message (an approval notice): put back first whenever pi's queue is refilled. */
  steerOwn(message: AgentMessage): void {
    this.own.push(message);
    this.agent()?.steer(message);
  }

  /** pi started delivering `message`: the input it belongs to leaves the queue. */
  delivered(message: AgentMessage): void {
    const ownIndex = this.own.indexOf(message);
    if (ownIndex !== -1) {
      this.own.splice(ownIndex, 1);
      return;
    }
    const index = this.entries.findIndex((e) => e.messages.includes(message));
    if (index === -1) return;
    // The prompt is its input's last message: the chip goes when the prompt is delivered.
    const entry = this.entries[index]!;
    if (entry.messages[entry.messages.length - 1] !== message) return;
    this.entries.splice(index, 1);
    this.changed(this.items, this.kept);
  }

  /** The run stopped: pi must not deliver anything the user queued; the queue stays for them. */
  hold(): void {
    const agent = this.agent();
    if (agent) {
      agent.clearFollowUpQueue();
      agent.clearSteeringQueue();
      for (const m of this.own) agent.steer(m);
    }
    if (this.entries.length > 0) {
      this.kept = true;
      this.changed(this.items, true);
    }
  }

  /** Takes everything queued, in order, as one prompt's messages (Send after Stop, or a run that ended first). */
  takeAll(): AgentMessage[] {
    const messages = this.entries.flatMap((e) => e.messages);
    this.entries = [];
    this.kept = false;
    this.sync();
    return messages;
  }

  clear(): void {
    this.entries = [];
    this.kept = false;
    this.sync();
  }

  /** Refills pi's queues from this one, in the order the user queued. */
  private sync(): void {
    const agent = this.agent();
    if (agent && !this.kept) {
      agent.clearFollowUpQueue();
      agent.clearSteeringQueue();
      for (const m of this.own) agent.steer(m);
      for (const entry of this.entries) {
        for (const m of entry.messages) {
          if (entry.view.kind === "steer") agent.steer(m);
          else agent.followUp(m);
        }
      }
    }
    this.changed(this.items, this.kept);
  }
}
