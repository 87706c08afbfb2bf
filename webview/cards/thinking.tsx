// A thinking block of Pi's answer: folded ("Thought"), open while Pi thinks, or a line saying the
// provider redacted it.
import type { AssistantBlock } from "../../src/shared/chat-items";
import { Spinner } from "../icons";
import { Collapsible } from "./collapsible";

export function Thinking({ id, block, active }: { id: string; block: AssistantBlock; active: boolean }) {
  if (block.redacted) {
    return <div class="thinking redacted">Thinking redacted by the provider</div>;
  }
  return (
    <Collapsible
      id={id}
      class="thinking"
      summary={
        <>
          {active && <Spinner />}
          {active ? "Thinking…" : "Thought"}
        </>
      }
    >
      <div class="thinking-text">{block.text}</div>
    </Collapsible>
  );
}
