// The composer's buttons for the run: Send while idle; while Pi writes, Steer (Alt+Enter), Queue a
// follow-up (Enter) and Stop (Escape). The keys are in composer-keys.ts.
import { SendIcon, SteerIcon, StopIcon } from "../icons";

export function RunButtons(props: {
  running: boolean;
  canSend: boolean;
  onSend: () => void;
  onQueue: (kind: "followUp" | "steer") => void;
  onStop: () => void;
}) {
  if (!props.running) {
    return (
      <button type="button" class="icon-button send-button" title="Send (Enter)" aria-label="Send" disabled={!props.canSend} onClick={props.onSend}>
        <SendIcon />
      </button>
    );
  }
  return (
    <>
      <button
        type="button"
        class="icon-button steer-button"
        title="Steer (Alt+Enter): sent after the current tool call, before Pi's next step"
        aria-label="Steer"
        disabled={!props.canSend}
        onClick={() => props.onQueue("steer")}
      >
        <SteerIcon />
      </button>
      <button
        type="button"
        class="icon-button queue-button"
        title="Queue a follow-up (Enter): sent when Pi finishes this reply"
        aria-label="Queue follow-up"
        disabled={!props.canSend}
        onClick={() => props.onQueue("followUp")}
      >
        <SendIcon />
      </button>
      <button type="button" class="button stop-button" title="Stop (Escape)" aria-label="Stop" onClick={props.onStop}>
        <StopIcon /> Stop
      </button>
    </>
  );
}
