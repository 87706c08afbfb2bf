// An edit waiting for approval, hunk by hunk: each hunk's header has Accept and Reject (toggle
// buttons, every hunk accepted to begin with), a rejected hunk is struck through, and the card's
// Allow writes only the accepted ones ("Allow 2 of 3 hunks"); Deny rejects them all. Each choice
// is announced. The host keeps the one record of the choices, which the editor's lenses share
// (src/host/approvals/edit-approvals.ts), and the model is told which hunks were not written.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { hunkNewText, MAX_EDIT_HUNKS } from "../../src/shared/partial-patch";
import type { DiffHunk } from "../../src/shared/structured-diff";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import { ApprovalForm } from "./approval";
import { DiffView } from "./diff-view";
import { HunkEditor } from "./hunk-editor";

/** What Allow will write, in words: for the announcement after each choice. */
function allowWrites(rejected: number, count: number): string {
  if (rejected === 0) return `Allow writes all ${count} hunks.`;
  if (rejected === count) return "Every hunk is rejected: Deny, or accept a hunk.";
  return `Allow writes ${count - rejected} of ${count} hunks.`;
}

interface HunkChoiceProps {
  index: number;
  count: number;
  rejected: boolean;
  /** Accept / Reject are offered only when the edit has several hunks; Edit always. */
  choices: boolean;
  editing: boolean;
  onChoose: (index: number, reject: boolean) => void;
  onEdit: (index: number) => void;
}

function HunkChoice(props: HunkChoiceProps) {
  const n = props.index + 1;
  return (
    // biome-ignore lint/a11y/useSemanticElements: toggle buttons in a diff line; a fieldset would break the line's layout.
    <span class="hunk-choice" role="group" aria-label={`Hunk ${n} of ${props.count}`}>
      <button type="button" class="text-button hunk-edit" aria-label={`Edit hunk ${n}`} aria-expanded={props.editing} onClick={() => props.onEdit(props.index)}>
        Edit
      </button>
      {props.choices && <HunkToggles {...props} />}
    </span>
  );
}

function HunkToggles(props: HunkChoiceProps) {
  const n = props.index + 1;
  return (
    <>
      <button
        type="button"
        class="text-button hunk-accept"
        aria-pressed={!props.rejected}
        aria-label={`Accept hunk ${n}`}
        onClick={() => props.onChoose(props.index, false)}
      >
        Accept
      </button>
      <button
        type="button"
        class="text-button hunk-reject"
        aria-pressed={props.rejected}
        aria-label={`Reject hunk ${n}`}
        onClick={() => props.onChoose(props.index, true)}
      >
        Reject
      </button>
    </>
  );
}

type EditedHunk = { hunk: number; text?: string };

/**
 * The diff and the decision of an edit waiting for approval; per-hunk choices when it has more than
 * one hunk, and Edit on each. The host keeps what is rejected and edited (`rejected`, `edited`: the
 * same record the editor's lenses show): a choice here is posted, shown at once, and the card
 * redraws from the host's answer. Alt+A pressed right after a choice sends what the card shows,
 * which is what the host's record holds once it handled the choice (messages go in order).
 */
export function PendingEditReview(props: { toolCallId: string; hunks: readonly DiffHunk[]; rejected: readonly number[]; edited: readonly EditedHunk[] }) {
  const { toolCallId, hunks } = props;
  const count = hunks.length;
  const byHunk = count <= MAX_EDIT_HUNKS;
  const choices = count > 1 && byHunk;
  const [chosen, setChosen] = useState<{ from: readonly number[]; rejected: readonly number[] } | null>(null);
  const [saved, setSaved] = useState<{ from: readonly EditedHunk[]; edited: readonly EditedHunk[] } | null>(null);
  const [editing, setEditing] = useState<number | null>(null);
  const shown = chosen !== null && chosen.from === props.rejected ? chosen.rejected : props.rejected;
  const edited = saved !== null && saved.from === props.edited ? saved.edited : props.edited;
  const rejectedSet = useMemo(() => new Set(shown), [shown]);
  // What the card last showed as rejected: a host record that differs from it came from the editor's
  // lenses (the card's own choices are set here before they are posted), and is announced too.
  const known = useRef<readonly number[]>(props.rejected);
  useEffect(() => {
    const changed = changedHunks(known.current, props.rejected);
    known.current = props.rejected;
    if (changed.length > 0) announce(`In the editor: ${changed.join(", ")}. ${allowWrites(props.rejected.length, count)}`);
  }, [props.rejected, count]);
  const choose = (index: number, reject: boolean) => {
    if (rejectedSet.has(index) === reject) return;
    const next = new Set(rejectedSet);
    if (reject) next.add(index);
    else next.delete(index);
    known.current = [...next].sort((a, b) => a - b);
    setChosen({ from: props.rejected, rejected: known.current });
    post({ type: "approval/hunk", toolCallId, hunk: index, accept: !reject });
    announce(`Hunk ${index + 1} ${reject ? "rejected" : "accepted"}. ${allowWrites(next.size, count)}`);
  };
  const saveEdit = (index: number, text: string | null) => {
    const others = edited.filter((e) => e.hunk !== index);
    setSaved({ from: props.edited, edited: text === null ? others : [...others, { hunk: index, text }].sort((a, b) => a.hunk - b.hunk) });
    if (text !== null && rejectedSet.has(index)) {
      // Editing a hunk accepts it (the host does the same).
      known.current = shown.filter((h) => h !== index);
      setChosen({ from: props.rejected, rejected: known.current });
    }
    post({ type: "approval/editHunk", toolCallId, hunk: index, text });
    announce(text === null ? `Hunk ${index + 1}: Pi's version again.` : `Hunk ${index + 1} edited: Allow writes your text there.`);
    focusEditButton(toolCallId, index);
    setEditing(null);
  };
  const editingHunk = editing === null ? undefined : hunks[editing];
  const editedText = (index: number) => edited.find((e) => e.hunk === index)?.text;
  return (
    <>
      <DiffView
        hunks={hunks}
        rejected={rejectedSet}
        {...(byHunk
          ? {
              hunkControls: (i: number) => (
                <HunkChoice
                  index={i}
                  count={count}
                  rejected={rejectedSet.has(i)}
                  choices={choices}
                  editing={editing === i}
                  onChoose={choose}
                  onEdit={(index) => setEditing(editing === index ? null : index)}
                />
              ),
            }
          : {})}
      />
      {editing !== null && editingHunk && (
        <HunkEditor
          key={editing}
          index={editing}
          initial={editedText(editing) ?? hunkNewText(editingHunk)}
          edited={editedText(editing) !== undefined}
          onSave={(text) => saveEdit(editing, text)}
          onCancel={() => {
            focusEditButton(toolCallId, editing);
            setEditing(null);
          }}
          onRevert={() => saveEdit(editing, null)}
        />
      )}
      {edited.map((e) => (
        <div key={e.hunk} class="hunk-edited">
          <p>Hunk {e.hunk + 1} is written as your text:</p>
          <pre>{e.text ?? ""}</pre>
        </div>
      ))}
      <ApprovalForm toolCallId={toolCallId} cardId={toolCallId} {...(byHunk ? { hunks: { count, rejected: shown, edited: edited.map((e) => e.hunk) } } : {})} />
    </>
  );
}

/** "hunk 3 rejected", "hunk 1 accepted": each hunk whose choice differs between the two records. */
function changedHunks(before: readonly number[], after: readonly number[]): string[] {
  const was = new Set(before);
  const now = new Set(after);
  return [...new Set([...before, ...after])]
    .filter((hunk) => was.has(hunk) !== now.has(hunk))
    .sort((a, b) => a - b)
    .map((hunk) => `hunk ${hunk + 1} ${now.has(hunk) ? "rejected" : "accepted"}`);
}

/** Back to the hunk's Edit button as its text box closes: moved before the box goes, so focus never falls elsewhere. */
function focusEditButton(toolCallId: string, index: number): void {
  document.querySelector<HTMLButtonElement>(`[data-item="${CSS.escape(toolCallId)}"] button[aria-label="Edit hunk ${index + 1}"]`)?.focus();
}
