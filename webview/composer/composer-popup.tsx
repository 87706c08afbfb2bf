// The composer's `@` and `/` list as drawn: a listbox whose options are never focused (the focus
// stays in the textarea, which points at the active one with aria-activedescendant), each with the
// matched characters in bold, and a status line. Its state lives in use-popup.ts.
import { mentionToken } from "../../src/shared/mentions";
import { LISTBOX_ID, optionId, type ListOption, type PopupState } from "./use-popup";

export function ComposerPopup({ list, onTake }: { list: PopupState; onTake: (index: number) => void }) {
  if (!list.listOpen || !list.popup) return null;
  return (
    <div class="composer-popup">
      <div id={LISTBOX_ID} role="listbox" aria-label={list.popup.mode === "mention" ? "Mention a file, folder or context" : "Commands and prompt templates"}>
        {list.options.map((o, i) => (
          <div
            key={o.kind === "mention" ? mentionToken(o.option.ref) : o.command.name}
            id={optionId(i)}
            role="option"
            // Not in the tab order: the focus stays in the textarea (aria-activedescendant).
            tabIndex={-1}
            aria-selected={i === list.active}
            class={`composer-option${i === list.active ? " active" : ""}`}
            onMouseDown={(e) => {
              e.preventDefault(); // keep the focus (and the caret) in the textarea
              onTake(i);
            }}
            onMouseMove={() => list.setActive(i)}
          >
            <OptionText option={o} />
          </div>
        ))}
      </div>
      <div class="composer-popup-status" role="status">
        {list.status}
      </div>
    </div>
  );
}

function OptionText({ option: o }: { option: ListOption }) {
  if (o.kind === "mention") {
    return (
      <>
        <span class="option-label">
          {o.option.ref.kind === "file" || o.option.ref.kind === "folder" ? "" : "@"}
          <Highlighted text={o.option.label} positions={o.option.positions ?? []} />
          {o.option.ref.kind === "folder" ? "/" : ""}
        </span>
        {o.option.detail && <span class="option-detail">{o.option.detail}</span>}
      </>
    );
  }
  return (
    <>
      <span class="option-label">
        /<Highlighted text={o.command.name} positions={o.positions} />
        {o.command.argumentHint && <span class="option-hint"> {o.command.argumentHint}</span>}
      </span>
      <span class="option-detail">{o.command.description}</span>
    </>
  );
}

/** `text` with the matched characters in bold. */
function Highlighted({ text, positions }: { text: string; positions: readonly number[] }) {
  if (positions.length === 0) return <>{text.replace(/[\u0000-\u001f\u007f]/g, "⏎")}</>;
  const marks = new Set(positions);
  const parts: preact.JSX.Element[] = [];
  let run = "";
  let bold = false;
  const flush = (key: number) => {
    if (run !== "") parts.push(bold ? <b key={key}>{run}</b> : <span key={key}>{run}</span>);
    run = "";
  };
  for (let i = 0; i < text.length; i++) {
    const isMark = marks.has(i);
    if (isMark !== bold) {
      flush(i);
      bold = isMark;
    }
    run += /[\u0000-\u001f\u007f]/.test(text[i]!) ? "⏎" : text[i];
  }
  flush(text.length);
  return <>{parts}</>;
}
