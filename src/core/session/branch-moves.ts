// A branch move applied to a chat: the path cut where an edit or a retry starts its new branch,
// or switched to a sibling branch. The view is told what to drop and replay, the forks and the
// meter; a switch saves the new leaf. branching.ts decides; this applies.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SavedDiffs } from "../../shared/diff-hunks";
import type { ChatEvent } from "../../shared/protocol";
import type { ContextMeter } from "../../shared/context-meter";
import { filesChangedBy, type BranchChange, type ChatBranches } from "./branching";
import type { ChatPath } from "./chat-path";
import type { SessionPersistence } from "./persistence";
import type { ChatSessionOptions } from "./types";

export interface BranchMoveHost {
  readonly options: Pick<ChatSessionOptions, "persistLeaf">;
  readonly path: ChatPath;
  readonly branches: ChatBranches;
  readonly store: Pick<SessionPersistence, "emitForks" | "redactMessage">;
  emit(event: ChatEvent): void;
  meter(): ContextMeter;
}

/** The path keeps its first `keep` messages; the next message saved starts a branch there. */
export function cutPath(host: BranchMoveHost, keep: number): BranchChange {
  const messages: readonly AgentMessage[] = host.path.messages;
  const left = messages.slice(keep);
  host.branches.cutAt(messages, keep);
  host.path.set(keep, []);
  host.emit({ type: "branch/rewind", keep });
  host.emit({ type: "context/meter", meter: host.meter() });
  return { filesLeftChanged: filesChangedBy(left) };
}

/**
 * Shows another branch: the sibling `to` of the message at path index `messageIndex`, followed
 * down to its newest leaf. The view drops and replays only the part below the fork.
 */
export async function switchPath(host: BranchMoveHost, messageIndex: number, to: number): Promise<BranchChange> {
  const { path, branches } = host;
  const switched = branches.switched(path.messages, messageIndex, to);
  if (!switched) return { filesLeftChanged: [] };
  const left = path.messages.slice(messageIndex);
  path.set(messageIndex, switched.suffix);
  branches.setLeaf(switched.leafId);
  host.emit({ type: "branch/rewind", keep: messageIndex });
  // As a restore does: an applied edit's notice takes its result's saved hunks, nothing parsed twice.
  const diffs = new SavedDiffs(switched.suffix);
  for (const message of switched.suffix) host.emit(diffs.event(message));
  host.store.emitForks(messageIndex);
  host.emit({ type: "context/meter", meter: host.meter() });
  await host.options.persistLeaf?.(switched.leafId, branches.pathSummary(switched.leafId, host.store.redactMessage));
  return { filesLeftChanged: filesChangedBy(left) };
}
