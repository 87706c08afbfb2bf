// Edit before accepting: one hunk's lines as they will be written (its context and added lines),
// in a text box the user changes. Ctrl+Enter (Cmd+Enter) or Save keeps the text, Escape or Cancel
// leaves it; "Use Pi's version" drops an earlier edit. The host keeps the text in its record of
// the edit's hunks and writes it in place of the hunk; the model is told those lines' final content.
import { useEffect, useRef, useState } from "preact/hooks";

export interface HunkEditorProps {
  index: number;
  /** The text the box starts with: the user's earlier edit, else the hunk's new side. */
  initial: string;
  /** The user edited this hunk before: offer Pi's version back. */
  edited: boolean;
  onSave: (text: string) => void;
  onCancel: () => void;
  onRevert: () => void;
}

export function HunkEditor(props: HunkEditorProps) {
  const [draft, setDraft] = useState(props.initial);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  const n = props.index + 1;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a text box and its two buttons under the diff, named for the hunk; not a form of its own.
    <div class="hunk-editor" role="group" aria-label={`Edit hunk ${n}`}>
      <textarea
        ref={box}
        class="hunk-editor-text"
        aria-label={`Hunk ${n}, as it will be written`}
        aria-keyshortcuts="Control+Enter Escape"
        rows={Math.min(12, Math.max(3, draft.split("\n").length))}
        maxLength={200_000}
        spellcheck={false}
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            props.onCancel();
          } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.isComposing) {
            e.preventDefault();
            props.onSave(draft);
          }
        }}
      />
      <div class="hunk-editor-actions">
        <button type="button" class="button primary" onClick={() => props.onSave(draft)}>
          Save hunk {n}
        </button>
        <button type="button" class="button secondary" onClick={props.onCancel}>
          Cancel
        </button>
        {props.edited && (
          <button type="button" class="button secondary" onClick={props.onRevert}>
            Use Pi's version
          </button>
        )}
      </div>
    </div>
  );
}
