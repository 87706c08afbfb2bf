// The quiet mark under an item saying what the model receives of it (src/shared/model-visibility.ts
// decides; convertToLlm follows the same decision). The item's group is named by the same words,
// so a screen reader hears them as it enters the item; the mark itself is hidden from it.
import type { ModelMark, ModelVisibility } from "../../src/shared/model-visibility";
import { EyeClosedIcon, EyeIcon, FoldIcon, SwapIcon } from "../icons";

/** The few words shown: an item sent as shown says so only on hover or focus (it is the common case). */
const SHORT: Readonly<Record<ModelVisibility, string>> = {
  asShown: "",
  otherForm: "sent to Pi in another form",
  summarized: "summarized for Pi",
  never: "not sent to Pi",
};

const ICON = { asShown: EyeIcon, otherForm: SwapIcon, summarized: FoldIcon, never: EyeClosedIcon } as const;

export function ModelMarkBadge({ mark, label }: { mark: ModelMark; label: string }) {
  const Icon = ICON[mark.visibility];
  return (
    <span class="model-mark" data-model={mark.visibility} title={label} aria-hidden="true">
      <Icon />
      {SHORT[mark.visibility] !== "" && <span class="model-mark-text">{SHORT[mark.visibility]}</span>}
    </span>
  );
}
