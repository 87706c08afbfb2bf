// The chat's side of checkpoints: *Restore files to here* and *Redo changes* on a message, Edit
// and Retry asking first "also restore files?", and the branch note when files stay changed.
// The file work (preview, restore, redo, the question) is HostCheckpoints'; this file holds the
// chat on screen while it runs and writes the note the model reads with the next request.
import * as vscode from "vscode";
import type { RestoreOutcome } from "../../core/checkpoints";
import type { FilesRestoredMessage } from "../../core/messages";
import type { BranchChange, ChatSession } from "../../core/session";
import type { HostCheckpoints } from "./host-checkpoints";
import type { ChatScreen } from "../chat-screen";
import type { ViewPort } from "../views/view-port";
import type { ChatStatus } from "../views/view-status";

/**
 * What the chat (and the model) is told after files were restored to the checkpoint of message `at`
 * (`messageIndex`: its path index, when the restored turns are on the path); it keeps the mark *Redo* on the note puts back.
 */
function filesRestoredNote(at: { number: number; text: string; messageIndex?: number }, outcome: RestoreOutcome, redo: boolean): FilesRestoredMessage {
  return {
    role: "filesRestored",
    messageNumber: at.number,
    messageText: at.text,
    redo,
    redoMarkId: outcome.redoMarkId,
    ...(at.messageIndex !== undefined && !redo ? { messageIndex: at.messageIndex } : {}),
    restored: outcome.restored.map((f) => f.path),
    deleted: outcome.deleted.map((f) => f.path),
    skipped: outcome.skipped.map((f) => ({ path: f.path, reason: f.reason })),
    timestamp: Date.now(),
  };
}

export interface ChatRestoresOptions {
  screen: ChatScreen;
  status: ChatStatus;
  view: ViewPort;
  /** Absent: no folder on disk, nothing to restore. */
  checkpoints: HostCheckpoints | undefined;
}

export class ChatRestores {
  constructor(private readonly options: ChatRestoresOptions) {
    // An "also restore files?" question was about the chat left.
    options.screen.onDidChange(({ left }) => {
      if (left) options.checkpoints?.dropOffer();
    });
  }

  /**
   * *Restore files to here* on the prompt at path index `messageIndex`: preview, restore, and a
   * note in the chat that the model reads with the next request. Refused while a reply runs.
   */
  async restoreFiles(messageIndex: number): Promise<void> {
    const { checkpoints, screen } = this.options;
    const session = screen.currentSession;
    if (!checkpoints) {
      void vscode.window.showInformationMessage("Pi Chat: files can be restored only in a workspace with its folders on disk.");
      return;
    }
    if (session.running) {
      void vscode.window.showWarningMessage("Pi Chat: wait for the reply to finish (or stop it) before restoring files.");
      return;
    }
    const at = session.checkpointOf(messageIndex);
    if (!at) {
      void vscode.window.showInformationMessage("Pi Chat: that message has no checkpoint.");
      return;
    }
    await screen.writeCurrentChat(session.id);
    const request = { chatId: session.id, markId: at.markId, number: at.number, text: at.text };
    const note = async (outcome: RestoreOutcome, redo: boolean) => {
      await session.noteFilesRestored(filesRestoredNote({ ...at, messageIndex }, outcome, redo));
    };
    // A chat with a restore under way is not let go (release): its note must go to the session that shows it.
    await screen.holding(session.id, () => checkpoints.restore(request, note));
  }

  /** *Redo changes* on the restore's note at path index `noteIndex` (the same Redo as the notification's). */
  async redoRestore(noteIndex: number): Promise<void> {
    const { checkpoints, screen } = this.options;
    const session = screen.currentSession;
    const restore = session.messages[noteIndex];
    if (!checkpoints || restore?.role !== "filesRestored" || restore.redo || restore.redoMarkId === undefined) return;
    const markId = restore.redoMarkId;
    // Already redone (the note's button is "done" then; a stale click).
    if (session.messages.some((m) => m.role === "filesRestored" && m.redo && m.redoMarkId === markId)) return;
    if (session.running) {
      void vscode.window.showWarningMessage("Pi Chat: wait for the reply to finish (or stop it) before redoing the changes.");
      return;
    }
    await screen.holding(session.id, () =>
      checkpoints.redo({ chatId: session.id }, { redoMarkId: markId }, async (redone) => {
        await session.noteFilesRestored(filesRestoredNote({ number: restore.messageNumber, text: restore.messageText }, redone, true));
      }),
    );
  }

  /** The answer to the "also restore files?" question; false for an offer that is not open. */
  answerOffer(id: number, choice: "restore" | "keep" | "cancel"): boolean {
    return this.options.checkpoints?.answerOffer(id, choice) ?? false;
  }

  /** A file's diff from the "also restore files?" question; false for an offer that is not open. */
  async openOfferDiff(id: number, path: string): Promise<boolean> {
    return (await this.options.checkpoints?.openOfferDiff(id, path)) ?? false;
  }

  /**
   * Edit or Retry: when the message's checkpoint has files Pi changed since, the view asks "also
   * restore files?" first (checkpoints.ts). Restore: the files are put back, and the new
   * branch starts with the note that says so (what the model reads); keep: as before; cancel: nothing.
   */
  async branchWithFiles(
    action: "edit" | "retry",
    messageIndex: number,
    edit: { text: string; removeImages?: number[] } | undefined,
    operation: (session: ChatSession, note: FilesRestoredMessage | undefined) => Promise<BranchChange>,
  ): Promise<void> {
    const { checkpoints, screen } = this.options;
    const session = screen.currentSession;
    const at = checkpoints && !session.running ? (action === "edit" ? session.checkpointOf(messageIndex) : session.retryCheckpointOf(messageIndex)) : undefined;
    if (!checkpoints || !at) return this.branch(() => operation(session, undefined));
    const request = { chatId: session.id, markId: at.markId, number: at.number, text: at.text };
    // Held like a restore: the answer and the note belong to this chat's session.
    const answer = await screen.holding(session.id, async (): Promise<{ branch: false } | { branch: true; note?: FilesRestoredMessage }> => {
      const { choice, plan } = await checkpoints.askAlsoRestore({ ...request, action, messageIndex, ...(edit ? { edit } : {}) }, (offer) =>
        this.options.view.send({ type: "checkpoint/offer", offer }),
      );
      if (choice === "cancel" || session !== screen.currentSession || session.running) return { branch: false };
      if (choice !== "restore" || !plan) return { branch: true };
      await screen.writeCurrentChat(session.id);
      const notice = (outcome: RestoreOutcome, redo: boolean) => filesRestoredNote(at, outcome, redo);
      // A Redo from the notice waits for the new answer to end, then says so in the chat.
      const outcome = await checkpoints.restoreForBranch(request, plan, async (redone, redo) => {
        await session.waitForIdle();
        await session.noteFilesRestored(notice(redone, redo));
      });
      return outcome ? { branch: true, note: notice(outcome, false) } : { branch: true };
    });
    if (!answer.branch) return;
    const { note } = answer;
    try {
      const putBack = new Set(note ? [...note.restored, ...note.deleted] : []);
      await this.branch(() => operation(session, note), putBack);
    } finally {
      // The branch did not start (the chat is written in another window): the note goes on the path as it is.
      if (note && !session.messages.includes(note)) await session.noteFilesRestored(note).catch(() => undefined);
    }
  }

  /** Edit, retry or switch: files changed on the branch left stay changed, and the view says so. */
  async branch(operation: () => Promise<BranchChange>, restored: ReadonlySet<string> = new Set()): Promise<void> {
    const { screen, status } = this.options;
    const session = screen.currentSession;
    status.setBranchNote(undefined);
    await screen.writeCurrentChat(session.id);
    const change = await operation();
    // Files the restore just put back are not "left changed".
    const left = change.filesLeftChanged.filter((p) => !restored.has(p));
    if (left.length > 0 && session === screen.currentSession) {
      status.setBranchNote(`Files changed on the branch you left keep their changes (${left.join(", ")}): switching branches does not undo edits.`);
    }
    if (session === screen.currentSession) status.send();
  }
}
