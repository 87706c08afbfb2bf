// Line comments on the plan the chat may approve: *Comment on lines* lists the plan's lines, each
// non-empty one with its own *Comment on line N* button (named with the line's words); a comment
// box opens under the line with the focus in it. *Revise* sends every comment with its line number
// (the host takes the line's text from the plan itself) and the model revises the plan.
import { useEffect, useRef, useState } from "preact/hooks";
import { CommentIcon } from "../icons";
import { announce } from "../live-region";
import { post } from "../vscode-api";

interface Draft {
  readonly open: boolean;
  readonly comments: ReadonlyMap<number, string>;
}

/**
 * The comments being written on each plan, by its tool call id: the card is drawn again when it
 * scrolls back into view in a long chat, and what was typed must still be there. View state only,
 * let go of with the chat (chat-caches.ts).
 */
const drafts = new Map<string, Draft>();

export function forgetPlanDrafts(): void {
  drafts.clear();
}

export function PlanComments({ toolCallId, plan }: { toolCallId: string; plan: string }) {
  const [draft, setDraft] = useState<Draft>(() => drafts.get(toolCallId) ?? { open: false, comments: new Map() });
  /** The map is the truth between two draws: two key presses before a redraw both count. */
  const keep = (change: (old: Draft) => Draft) => {
    const next = change(drafts.get(toolCallId) ?? draft);
    drafts.set(toolCallId, next);
    setDraft(next);
  };
  const { open, comments } = draft;
  const setOpen = (value: boolean) => keep((old) => ({ ...old, open: value }));
  const [editing, setEditing] = useState<number | undefined>(undefined);
  /** The line whose button takes the focus back once its box closes by Enter or Escape. */
  const [back, setBack] = useState<number | undefined>(undefined);
  const lines = plan.split("\n");
  const written = [...comments].filter(([, text]) => text.trim() !== "");
  const listId = `plan-lines-${toolCallId}`;
  const setComment = (line: number, text: string) => keep((old) => ({ ...old, comments: new Map(old.comments).set(line, text) }));
  const revise = () => {
    post({ type: "plan/revise", toolCallId, comments: written.map(([line, comment]) => ({ line, comment })) });
    announce(`Sent ${written.length} ${written.length === 1 ? "comment" : "comments"}: Pi revises the plan`);
  };
  return (
    <div class="plan-comments">
      <div class="plan-actions">
        <button type="button" class="button secondary" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
          <CommentIcon /> Comment on lines
        </button>
        {written.length > 0 && (
          <button type="button" class="button primary" onClick={revise}>
            Revise ({written.length} {written.length === 1 ? "comment" : "comments"})
          </button>
        )}
      </div>
      {open && (
        <ol id={listId} class="plan-lines" aria-label="Plan lines">
          {lines.map((text, index) => {
            const line = index + 1;
            if (text.trim() === "") return null;
            return (
              <li key={line} value={line} class="plan-line">
                <div class="plan-line-row">
                  <span class="plan-line-text">{text}</span>
                  <CommentControl
                    line={line}
                    text={text}
                    comment={comments.get(line)}
                    editing={editing === line}
                    focusBack={back === line}
                    onEdit={() => setEditing(line)}
                    onChange={(value) => setComment(line, value)}
                    onDone={(focusBack) => {
                      setEditing(undefined);
                      setBack(focusBack ? line : undefined);
                    }}
                    onFocusedBack={() => setBack(undefined)}
                  />
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}

function CommentControl(props: {
  line: number;
  text: string;
  comment: string | undefined;
  editing: boolean;
  focusBack: boolean;
  onEdit: () => void;
  onChange: (value: string) => void;
  onDone: (focusBack: boolean) => void;
  onFocusedBack: () => void;
}) {
  const button = useRef<HTMLButtonElement>(null);
  const { line, text, comment, editing, focusBack } = props;
  useEffect(() => {
    if (!focusBack || editing) return;
    button.current?.focus();
    props.onFocusedBack();
  }, [focusBack, editing]);
  if (!editing) {
    return (
      <>
        {comment !== undefined && comment.trim() !== "" && <span class="plan-line-comment">{comment}</span>}
        <button
          ref={button}
          type="button"
          class="button secondary plan-line-button"
          aria-label={`${comment?.trim() ? "Edit the comment on" : "Comment on"} line ${line}: ${text.trim()}`}
          onClick={props.onEdit}
        >
          <CommentIcon />
        </button>
      </>
    );
  }
  return <CommentBox line={line} comment={comment} onChange={props.onChange} onDone={props.onDone} />;
}

/** The box of one line's comment: the focus in it when it opens. */
function CommentBox(props: { line: number; comment: string | undefined; onChange: (value: string) => void; onDone: (focusBack: boolean) => void }) {
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <textarea
      ref={box}
      class="plan-line-box"
      aria-label={`Comment on line ${props.line}`}
      rows={2}
      value={props.comment ?? ""}
      onInput={(e) => props.onChange((e.currentTarget as HTMLTextAreaElement).value)}
      onKeyDown={(e) => {
        // Enter keeps the comment (Shift+Enter: a new line), Escape keeps what is written too: both give the focus back to the line.
        if ((e.key === "Enter" && !e.shiftKey) || e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          props.onDone(true);
        }
      }}
      onBlur={() => props.onDone(false)}
    />
  );
}
