// The view of a transcript by folding the live reducer over a `message/end` per message: what the
// one-pass rebuild (`stateFromTranscript`) must equal. A test and bench yardstick, not product code.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { emptyChatState, reduce, type ChatState } from "../../src/shared/reducer";
import { SavedDiffs } from "../../src/shared/diff-hunks";

/** The view of a transcript by folding the reducer over it: what `stateFromTranscript` must equal. */
export function replayWithReducer(messages: readonly AgentMessage[]): ChatState {
  let state = emptyChatState;
  const diffs = new SavedDiffs(messages);
  for (const message of messages) state = reduce(state, diffs.event(message));
  return state;
}
