// Edit, retry and branch switching, as pure decisions over the current path and the chat's
// tree: where a new branch starts, what the view must drop and replay, which forks to show.
// The session (session.ts) applies them; nothing here runs a model or writes a file.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatTree, TreeNode } from "./transcript";
import type { ForkMark } from "../shared/protocol";

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

/** The forks of `path` from `from` on, with the item each is shown on. */
export function forkMarks(tree: ChatTree<AgentMessage>, path: readonly TreeNode<AgentMessage>[], from: number): ForkMark[] {
  return tree.forksOn(path, from).map((fork) => {
    let showAt = fork.pathIndex;
    // A turn that starts with attachments: the switcher belongs on its prompt.
    while (path[showAt]?.message.role === "fileAttachment" && showAt + 1 < path.length) showAt++;
    return { messageIndex: fork.pathIndex, showAt, index: fork.index, count: fork.count };
  });
}

/**
 * The nodes from `from` (exclusive) down to `leaf` (inclusive), read upwards from the leaf:
 * O(length of the new part), never the whole chat.
 */
export function suffixBetween(tree: ChatTree<AgentMessage>, fromId: string | null, leafId: string): TreeNode<AgentMessage>[] {
  const out: TreeNode<AgentMessage>[] = [];
  let node = tree.get(leafId);
  while (node && node.id !== fromId) {
    out.push(node);
    node = node.parentId === null ? undefined : tree.get(node.parentId);
  }
  return out.reverse();
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
