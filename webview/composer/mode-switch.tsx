// The composer's Plan / Act switch: one toggle button (aria-pressed when planning) whose name
// says the mode, so a screen reader hears "Plan mode, toggle button, pressed". The host saves
// the switch in the chat and tells the model; the button shows the host's mode, never its own.
import { ChecklistIcon } from "../icons";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import type { ChatMode } from "../../src/shared/app-messages";

export function ModeSwitch({ mode, readOnly }: { mode: ChatMode; readOnly: boolean }) {
  const planning = mode === "plan";
  return (
    <button
      type="button"
      class={`mode-switch${planning ? " planning" : ""}`}
      aria-pressed={planning}
      disabled={readOnly}
      title={planning ? "Plan mode: Pi reads and plans, and changes nothing (Ctrl+Alt+P: act)" : "Plan mode: read and plan first, change nothing (Ctrl+Alt+P)"}
      onClick={() => {
        post({ type: "chat/setMode", mode: planning ? "act" : "plan" });
        announce(planning ? "Act mode: Pi may edit and run commands again" : "Plan mode: Pi reads and plans, and changes nothing");
      }}
    >
      <ChecklistIcon /> Plan mode
    </button>
  );
}
