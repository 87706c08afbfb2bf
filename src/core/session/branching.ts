// Edit, retry and branch switching: where a new branch starts, what the view must drop and
// replay, which forks to show. `ChatBranches` holds the chat's tree and knows the node of each
// message on the current path; the session (chat-session.ts) applies its answers. Nothing here runs
// a model or writes a file.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatTree, type TreeNode } from "../transcript/tree";
import { summarizePath, type PathSummary } from "../transcript/chat-index";
import type { ForkMark } from "../../shared/protocol";
import type { StoredImageContent } from "../../shared/images";
import type { FileAttachmentMessage } from "../messages";
import { messageText } from "../transcript/title";

/** What a branch operation left behind that the user should know: files changed on the branch left. */
export interface BranchChange {
  filesLeftChanged: string[];
}

/** The first message of the user turn that message `index` belongs to (its attachments come first). */
export function turnStart(messages: readonly AgentMessage[], index: number): number {
  let start = index;
  while (start > 0 && messages[start - 1]!.role === "fileAttachment") start--;
  return start;
}

/** The prompt an answer at `index` replies to: the last user message at or before it. */
export function promptBefore(messages: readonly AgentMessage[], index: number): number | undefined {
  for (let i = Math.min(index, messages.length - 1); i >= 0; i--) if (messages[i]!.role === "user") return i;
  return undefined;
}

/**
 * Files a branch changed (successful edits), for the note that leaving a branch does not undo
 * them: the file system has one state, whatever branch the chat shows.
 */
export function filesChangedBy(messages: readonly AgentMessage[]): string[] {
  const paths = new Set<string>();
  for (const m of messages) {
    if (m.role !== "toolResult" || m.isError) continue;
    const details = m.details as { path?: unknown; diff?: unknown } | undefined;
    if (details && typeof details.path === "string" && typeof details.diff === "string") paths.add(details.path);
  }
  return [...paths];
}

/**
 * The chat's tree and the node of every message on the current path. Messages are matched to
 * nodes by object identity (the path the session shows holds the same objects the tree does), so
 * the session's message order may differ from the file order (an old file whose system message
 * was saved after a `!cmd`) without confusing either.
 */
export class ChatBranches {
  private readonly nodeOf = new WeakMap<object, string>();
  /** Messages on the path to a node (its depth), remembered for the nodes asked about and those above them. */
  private readonly depthOf = new Map<string, number>();

  constructor(readonly tree: ChatTree<AgentMessage> = new ChatTree<AgentMessage>()) {
    for (const node of tree.path()) this.nodeOf.set(node.message, node.id);
  }

  /** The node the next saved message continues from (null: the chat's first message). */
  get leafId(): string | null {
    return this.tree.leafId;
  }

  get isEmpty(): boolean {
    return this.tree.size === 0;
  }

  nodeIdOf(message: AgentMessage): string | undefined {
    return this.nodeOf.get(message);
  }

  /** A message was saved as node `id` under `parentId`. True when it has siblings (a new fork). */
  added(id: string, parentId: string | null, message: AgentMessage): boolean {
    this.tree.add(id, parentId, message);
    this.nodeOf.set(message, id);
    return this.tree.childrenOf(parentId).length > 1;
  }

  /**
   * The path keeps `messages[0..keep)`; the next message saved starts a branch beside
   * `messages[keep]`, under its parent in the tree. Not under `messages[keep - 1]`: in a chat an
   * earlier build saved with a `!cmd` or a setup error before the system message, the session
   * shows the system message first, so the message before the first prompt on screen is the
   * `!cmd`, while in the file the prompt hangs under the system message.
   */
  cutAt(messages: readonly AgentMessage[], keep: number): void {
    const first = messages[keep];
    const firstId = first ? this.nodeOf.get(first) : undefined;
    const firstNode = firstId === undefined ? undefined : this.tree.get(firstId);
    if (firstNode) {
      this.tree.leafId = firstNode.parentId;
      return;
    }
    const before = keep > 0 ? messages[keep - 1] : undefined;
    this.tree.leafId = before ? (this.nodeOf.get(before) ?? this.tree.leafId) : null;
  }

  /**
   * The messages from `index` on of the path that shows sibling `to` of `messages[index]`,
   * followed down to its newest leaf, or undefined when there is no such sibling. Reads the new
   * part only: O(its length).
   */
  switched(messages: readonly AgentMessage[], index: number, to: number): { suffix: AgentMessage[]; leafId: string } | undefined {
    const message = messages[index];
    const nodeId = message ? this.nodeOf.get(message) : undefined;
    const node = nodeId === undefined ? undefined : this.tree.get(nodeId);
    const target = node ? this.tree.childrenOf(node.parentId)[to] : undefined;
    if (!node || !target || target === node) return undefined;
    const leafId = this.tree.newestLeafUnder(target.id);
    const suffix = this.between(node.parentId, leafId);
    for (const n of suffix) this.nodeOf.set(n.message, n.id);
    return { suffix: suffix.map((n) => n.message), leafId };
  }

  /** Makes `leafId` current (after a switch). */
  setLeaf(leafId: string): void {
    this.tree.leafId = leafId;
  }

  /**
   * What the history list shows for the path to `leafId`, then `next` if given (a message about
   * to be saved under it). `redact` turns a message into what the file holds. Reads the newest
   * messages only (to the last one with text and the last answer), whatever the path's length.
   */
  pathSummary(leafId: string | null, redact: (message: AgentMessage) => AgentMessage, next?: AgentMessage): PathSummary {
    const count = (leafId === null ? 0 : this.depth(leafId)) + (next ? 1 : 0);
    return summarizePath(count, this.newestFirst(leafId, next), (m) => redact(m as AgentMessage));
  }

  /**
   * The path summary when saving a message under `parentId` starts a new branch (an edit, a
   * retry: `parentId` has children already), so the chat's count and preview in the history
   * list are no longer the old path's plus one; undefined when it continues the path.
   */
  newPathSummary(parentId: string | null, redact: (message: AgentMessage) => AgentMessage, next: AgentMessage): PathSummary | undefined {
    return this.tree.childrenOf(parentId).length > 0 ? this.pathSummary(parentId, redact, next) : undefined;
  }

  /** How many messages the path to node `id` holds: a walk up to the first node whose depth is known (the root, the first time). */
  private depth(id: string): number {
    const unknown: string[] = [];
    let depth = 0;
    let node = this.tree.get(id);
    while (node) {
      const known = this.depthOf.get(node.id);
      if (known !== undefined) {
        depth = known;
        break;
      }
      unknown.push(node.id);
      node = node.parentId === null ? undefined : this.tree.get(node.parentId);
    }
    for (let i = unknown.length - 1; i >= 0; i--) this.depthOf.set(unknown[i]!, ++depth);
    return depth;
  }

  /** `next`, then the messages of the path to `leafId` from the leaf up. */
  private *newestFirst(leafId: string | null, next: AgentMessage | undefined): IterableIterator<AgentMessage> {
    if (next) yield next;
    let node = leafId === null ? undefined : this.tree.get(leafId);
    while (node) {
      yield node.message;
      node = node.parentId === null ? undefined : this.tree.get(node.parentId);
    }
  }

  /**
   * The forks of the path from index `from` on: each message that has siblings, with the item it
   * is shown on (the prompt of a turn that starts with attachments or a system message).
   */
  forks(messages: readonly AgentMessage[], from: number): ForkMark[] {
    const marks: ForkMark[] = [];
    for (let i = Math.max(0, from); i < messages.length; i++) {
      const id = this.nodeOf.get(messages[i]!);
      const node = id === undefined ? undefined : this.tree.get(id);
      if (!node) continue;
      const siblings = this.tree.childrenOf(node.parentId);
      if (siblings.length < 2) continue;
      // Shown on the next message the view draws: a turn's prompt after its attachments, and
      // after a system message (the tools changed since an older chat was saved, so the first
      // message of a new branch there is the system message recording it).
      let showAt = i;
      while ((messages[showAt]?.role === "fileAttachment" || messages[showAt]?.role === "system") && showAt + 1 < messages.length) showAt++;
      marks.push({ messageIndex: i, showAt, index: siblings.indexOf(node), count: siblings.length });
    }
    return marks;
  }

  /** The nodes below `fromId` (exclusive) down to `leafId` (inclusive), read upwards from the leaf. */
  private between(fromId: string | null, leafId: string): TreeNode<AgentMessage>[] {
    const out: TreeNode<AgentMessage>[] = [];
    let node = this.tree.get(leafId);
    while (node && node.id !== fromId) {
      out.push(node);
      node = node.parentId === null ? undefined : this.tree.get(node.parentId);
    }
    return out.reverse();
  }
}

/** The checkpoint of a prompt: its transcript node (the mark), its number on the path, its first words. */
export interface PromptCheckpoint {
  markId: string;
  number: number;
  text: string;
}

/** The checkpoint of the prompt at path index `index`, if it is a saved prompt. */
export function promptCheckpoint(messages: readonly AgentMessage[], index: number, branches: ChatBranches): PromptCheckpoint | undefined {
  const number = messages.slice(0, index + 1).filter((m) => m.role === "user").length;
  return checkpointOfPrompt(messages[index], number, branches);
}

/** The checkpoints of every saved prompt on the path, newest first (one pass: a long chat asks this at every review). */
export function promptCheckpoints(messages: readonly AgentMessage[], branches: ChatBranches): PromptCheckpoint[] {
  const out: PromptCheckpoint[] = [];
  let number = 0;
  for (const m of messages) {
    if (m.role !== "user") continue;
    const at = checkpointOfPrompt(m, ++number, branches);
    if (at) out.push(at);
  }
  return out.reverse();
}

function checkpointOfPrompt(prompt: AgentMessage | undefined, number: number, branches: ChatBranches): PromptCheckpoint | undefined {
  if (prompt?.role !== "user") return undefined;
  const markId = branches.nodeIdOf(prompt);
  if (markId === undefined) return undefined;
  const words = messageText(prompt).replace(/\s+/g, " ").trim();
  return { markId, number, text: words.length > 60 ? `${words.slice(0, 59)}…` : words };
}

/**
 * What an edit of the prompt at `index` sends again: where its turn starts, its attached files
 * (what its mentions carried: nothing is read again) and its images but those at `removeImages`.
 */
export function editedTurn(
  messages: readonly AgentMessage[],
  index: number,
  removeImages: readonly number[],
): { start: number; attachments: FileAttachmentMessage[]; images: StoredImageContent[] } {
  const prompt = messages[index];
  if (prompt?.role !== "user") throw new Error("That message is not a prompt of this chat.");
  const start = turnStart(messages, index);
  const attachments = messages
    .slice(start, index)
    .flatMap((m) => (m.role === "fileAttachment" ? [{ ...m, ...(m.range ? { range: { ...m.range } } : {}) }] : []));
  const images = (typeof prompt.content === "string" ? [] : prompt.content.filter((c): c is StoredImageContent => c.type === "image")).filter(
    (_, i) => !removeImages.includes(i),
  );
  return { start, attachments, images };
}
