// Checkpoints in VS Code: the workspace I/O a restore uses (reads from disk, writes and deletes
// through workspace.fs so open editors follow and untouched files keep their mtimes, unsaved
// editors reported), the preview (a QuickPick listing what changes and what is skipped, each file
// openable as a diff), the notice after a restore with *Redo changes* (also on the restore's note
// in the chat, see redo), and the roll-back of a
// restore a crash cut off, at activation.
import * as vscode from "vscode";
import {
  Checkpoints,
  createNodeCheckpointIo,
  type CheckpointIo,
  type PlannedFile,
  type RestoreOutcome,
  type RestorePlan,
  SECRET_NOT_KEPT,
  type SkippedFile,
} from "../../core/checkpoints";
import type { WalkRules } from "../../core/tools";
import type { FilesOffer } from "../../shared/protocol";
import type { WorkspacePaths } from "../adapters/workspace-paths";
import { createWatcherFeed } from "./watcher-feed";

/** The scheme of the read-only documents that show a file as it was at a checkpoint (left side of the diff). */
export const CHECKPOINT_SCHEME = "pi-chat-checkpoint";

export function createHostCheckpointIo(paths: WorkspacePaths): CheckpointIo | undefined {
  // Only folders on disk: a virtual file system has no lstat, and commands run only on disk anyway.
  const onDisk = paths.folders.filter((f) => f.uri.scheme === "file");
  if (onDisk.length === 0 || onDisk.length !== paths.folders.length) return undefined;
  const open = (path: string) => {
    const uri = paths.uriOf(path);
    return uri && vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  };
  const disk = createNodeCheckpointIo(
    onDisk.map((f) => ({ name: f.name, root: f.uri.fsPath })),
    (path) => open(path)?.isDirty === true,
  );
  const uriOf = (path: string): vscode.Uri => {
    const uri = paths.uriOf(path);
    if (!uri) throw new Error(`${path} is not in an open folder`);
    return uri;
  };
  return {
    ...disk,
    async writeFile(path, data) {
      // workspace.fs: an open (saved) editor reloads the new content; parent folders are created.
      await vscode.workspace.fs.writeFile(uriOf(path), data);
    },
    async deleteFile(path) {
      await vscode.workspace.fs.delete(uriOf(path), { recursive: false, useTrash: false });
    },
  };
}

/** What the user decides on the preview. */
export type PreviewAnswer = "restore" | "cancel";

export interface RestoreRequest {
  chatId: string;
  markId: string;
  /** The prompt's number and first words, for the words the user and the model read. */
  number: number;
  text: string;
}

export interface RestoreResult {
  outcome: RestoreOutcome;
  plan: RestorePlan;
}

/** What the user chose on "also restore files?" (Edit or Retry of a message with files changed since). */
export type OfferChoice = "restore" | "keep" | "cancel";

export interface BranchOfferRequest extends RestoreRequest {
  action: "edit" | "retry";
  /** The message whose Edit or Retry was clicked. */
  messageIndex: number;
  edit?: { text: string; removeImages?: number[] };
}

const DID: Record<PlannedFile["piDid"], string> = { modified: "modified by Pi", created: "created by Pi", deleted: "deleted by Pi" };
const WILL: Record<PlannedFile["piDid"], string> = { modified: "put back", created: "deleted", deleted: "brought back" };

/** A skipped file's line in the preview: a secret one says it was never kept ("not kept: .env (secrets are never copied)"). */
export function skippedLabel(file: SkippedFile): string {
  return file.reason === SECRET_NOT_KEPT ? `not kept: ${file.path} (${SECRET_NOT_KEPT})` : file.path;
}

export class HostCheckpoints implements vscode.Disposable {
  readonly checkpoints: Checkpoints;
  private readonly disposables: vscode.Disposable[] = [];
  /** Test seam: answers the preview in place of a person (the real one is a QuickPick). */
  preview: (plan: RestorePlan, request: RestoreRequest) => Promise<PreviewAnswer> = (plan, request) => this.showPreview(plan, request);
  /** Test seam: the notice after a restore; resolves with the button chosen. */
  notify: (text: string, ...buttons: string[]) => Thenable<string | undefined> = (text, ...buttons) => vscode.window.showInformationMessage(text, ...buttons);

  /** The notice the last recovery at activation showed (tests read it; the user sees the notification). */
  recoveryNotice: string | undefined;
  /** Numbers the preview's diffs, so each shows the file as it is at that moment. */
  private diffsOpened = 0;
  /** The "also restore files?" question the view shows now, if any. */
  private offer: { id: number; plan: RestorePlan; answer: (choice: OfferChoice) => void } | undefined;
  private offerIds = 0;
  /** Restores already redone (by their redo mark), in this window; the chat's notes say so across reloads. */
  private readonly redone = new Set<string>();

  constructor(
    storageDir: string,
    io: CheckpointIo,
    private readonly paths: WorkspacePaths,
    rules: () => WalkRules,
    private readonly log: (line: string) => void,
  ) {
    // VS Code's watcher tells what changed since the last look, so a command's before need not walk the tree.
    this.checkpoints = new Checkpoints({ storageRoot: storageDir, io, rules, log, changes: createWatcherFeed(paths) });
    this.disposables.push(
      { dispose: () => this.checkpoints.dispose() },
      // A save while a command runs is not the command's doing (unless Pi is the one writing):
      // known before it is written (VS Code waits for will-save), so it never lands unannounced.
      vscode.workspace.onWillSaveTextDocument((e) => {
        const path = paths.pathOf(e.document.uri);
        if (path !== undefined) this.checkpoints.noteSave(path);
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        const path = paths.pathOf(doc.uri);
        if (path !== undefined) this.checkpoints.noteSave(path);
      }),
      vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, {
        provideTextDocumentContent: async (uri) => {
          const query = new URLSearchParams(uri.query);
          // The file as it is now, as a read-only copy (the preview's right side: see openDiff).
          if (query.has("now")) {
            const file = this.paths.uriOf(uri.path.slice(1));
            return file ? new TextDecoder().decode(await vscode.workspace.fs.readFile(file)) : "";
          }
          const hash = query.get("hash");
          if (!hash) return "";
          const bytes = await this.checkpoints.storage.getBlob(hash);
          return bytes ? new TextDecoder().decode(bytes) : "(the saved content is missing)";
        },
      }),
    );
  }

  /** At activation: a restore a crash or reload cut off is rolled back (or found complete), and the user is told. */
  async recoverAtStart(): Promise<void> {
    const report = await this.checkpoints.recover().catch((e: unknown) => {
      this.log(`checkpoints: recovery failed: ${String(e)}`);
      return undefined;
    });
    // Blobs no journal refers to (an earlier window's command baseline) go, in the background.
    void this.checkpoints
      .collectGarbage()
      .then((freed) => freed > 0 && this.log(`checkpoints: ${freed} bytes of unused blobs removed`))
      .catch(() => undefined);
    if (!report) return;
    this.log(`checkpoints: interrupted restore ${report.outcome}: ${report.putBack.join(", ")}`);
    const problems = report.problems.length > 0 ? ` Could not put back: ${report.problems.map((p) => `${p.path} (${p.reason})`).join("; ")}.` : "";
    const text =
      report.outcome === "completed"
        ? "Pi Chat: a restore of files was interrupted after it had finished; nothing more was needed."
        : `Pi Chat: a restore of files was interrupted by a reload or crash and has been undone, so no file is left half-restored (${report.putBack.length} put back as they were before it).${problems} You can restore again.`;
    this.recoveryNotice = text;
    void vscode.window.showWarningMessage(text);
  }

  /**
   * Opens the diff of one planned file: the checkpoint's content beside the file now. Both sides
   * are read-only copies and the focus stays where it was (the preview's picker): keys typed
   * for the picker must never land in an editable copy of a workspace file (they once erased one).
   */
  async openDiff(file: PlannedFile | SkippedFile, plan: RestorePlan): Promise<void> {
    const planned = plan.files.find((f) => f.path === file.path);
    const target = planned?.target;
    const uri = this.paths.uriOf(file.path);
    if (!uri) return;
    const left = vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${file.path}`, query: target && "hash" in target ? `hash=${target.hash}` : "" });
    const exists = await vscode.workspace.fs.stat(uri).then(
      () => true,
      () => false,
    );
    // A new query each time: VS Code keeps a virtual document by its URI, and "now" changes.
    const right = vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${file.path}`, query: exists ? `now=${++this.diffsOpened}` : "" });
    await vscode.commands.executeCommand("vscode.diff", left, right, `${file.path} (at the checkpoint ↔ now, read-only)`, {
      preview: true,
      preserveFocus: true,
    });
  }

  private showPreview(plan: RestorePlan, request: RestoreRequest): Promise<PreviewAnswer> {
    type Item = vscode.QuickPickItem & { file?: PlannedFile | SkippedFile; action?: PreviewAnswer };
    const pick = vscode.window.createQuickPick<Item>();
    pick.title = `Restore files to before message ${request.number} ("${request.text}")`;
    pick.placeholder = "Choose a file to see its diff, or Restore";
    pick.ignoreFocusOut = true;
    const items: Item[] = [
      {
        label: plan.files.length > 0 ? `$(discard) Restore ${plan.files.length} file${plan.files.length === 1 ? "" : "s"}` : "$(close) Nothing can be restored",
        action: plan.files.length > 0 ? "restore" : "cancel",
        detail:
          [
            plan.skipped.length > 0 ? `${plan.skipped.length} skipped: your own changes and what cannot be restored are left alone` : "",
            plan.damagedLines ? `${plan.damagedLines} damaged line(s) of the checkpoint record were skipped` : "",
          ]
            .filter((s) => s !== "")
            .join("; ") || undefined,
      },
      { label: "Will change", kind: vscode.QuickPickItemKind.Separator },
      ...plan.files.map((f): Item => ({ label: f.path, description: `${DID[f.piDid]} — will be ${WILL[f.piDid]}`, file: f })),
      ...(plan.skipped.length > 0 ? [{ label: "Skipped", kind: vscode.QuickPickItemKind.Separator } as Item] : []),
      ...plan.skipped.map(
        (s): Item =>
          s.reason === SECRET_NOT_KEPT
            ? { label: `$(lock) ${skippedLabel(s)}`, description: DID[s.piDid] }
            : { label: `$(circle-slash) ${skippedLabel(s)}`, description: `${DID[s.piDid]}: skipped`, detail: s.reason, file: s },
      ),
      { label: "$(close) Cancel", action: "cancel" },
    ];
    pick.items = items;
    return new Promise<PreviewAnswer>((resolve) => {
      let answered = false;
      const finish = (answer: PreviewAnswer) => {
        if (answered) return;
        answered = true;
        resolve(answer);
        pick.dispose();
      };
      let openingDiff = false;
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0];
        if (chosen?.action) finish(chosen.action);
        else if (chosen?.file) {
          // Opening the diff may hide the picker: it comes back over the diff.
          openingDiff = true;
          void this.openDiff(chosen.file, plan).finally(() => {
            openingDiff = false;
            if (!answered) pick.show();
          });
        }
      });
      pick.onDidHide(() => {
        if (!openingDiff) finish("cancel");
      });
      pick.show();
    });
  }

  /**
   * The whole flow for one message: plan, preview, restore, the notice with Redo. Returns what was
   * done (undefined: nothing to restore, cancelled, or no checkpoint).
   */
  async restore(request: RestoreRequest, note: (outcome: RestoreOutcome, redo: boolean) => Promise<void>): Promise<RestoreResult | undefined> {
    const plan = await this.checkpoints.plan(request.chatId, request.markId);
    if (!plan) {
      void vscode.window.showInformationMessage(`Pi Chat: message ${request.number} has no checkpoint (it was sent before checkpoints were kept).`);
      return undefined;
    }
    if (plan.files.length === 0 && plan.skipped.length === 0) {
      void vscode.window.showInformationMessage(`Pi Chat: the files are already as they were before message ${request.number}.`);
      return undefined;
    }
    if ((await this.preview(plan, request)) !== "restore") return undefined;
    const outcome = await this.checkpoints.restore(request.chatId, request.markId, plan);
    if (!outcome) return undefined;
    this.log(
      `checkpoints: restored to ${request.markId}: ${outcome.restored.length} put back, ${outcome.deleted.length} deleted, ${outcome.skipped.length} skipped`,
    );
    await note(outcome, false);
    void this.offerRedo(request, outcome, note);
    return { outcome, plan };
  }

  private async offerRedo(request: RestoreRequest, outcome: RestoreOutcome, note: (outcome: RestoreOutcome, redo: boolean) => Promise<void>): Promise<void> {
    const skipped =
      outcome.skipped.length > 0 ? ` Skipped ${outcome.skipped.length}: ${outcome.skipped.map((s) => `${s.path} (${s.reason})`).join("; ")}.` : "";
    const text = `Pi Chat: files restored to before message ${request.number}: ${outcome.restored.length} put back, ${outcome.deleted.length} deleted.${skipped}`;
    const choice = await this.notify(text, "Redo changes");
    if (choice !== "Redo changes") return;
    await this.redo(request, outcome, note);
  }

  /**
   * Puts back what the restore replaced (only files still as the restore left them), once: the
   * notification's button and the note's in the chat are one action. The note it gets names the
   * restore it redid (its `redoMarkId`), so the chat can say that restore's Redo is done.
   */
  async redo(
    request: Pick<RestoreRequest, "chatId">,
    outcome: Pick<RestoreOutcome, "redoMarkId">,
    note: (outcome: RestoreOutcome, redo: boolean) => Promise<void>,
  ): Promise<RestoreOutcome | undefined> {
    if (this.redone.has(outcome.redoMarkId)) return undefined;
    this.redone.add(outcome.redoMarkId);
    const redone = await this.checkpoints.restore(request.chatId, outcome.redoMarkId);
    if (!redone) {
      this.redone.delete(outcome.redoMarkId);
      return undefined;
    }
    this.log(
      `checkpoints: redo of ${outcome.redoMarkId}: ${redone.restored.length} put back, ${redone.deleted.length} deleted, ${redone.skipped.length} skipped`,
    );
    await note({ ...redone, redoMarkId: outcome.redoMarkId }, true);
    return redone;
  }

  /** The id of the offer waiting for an answer (tests answer it as the view would). */
  get pendingOfferId(): number | undefined {
    return this.offer?.id;
  }

  /**
   * Edit or Retry of a message: when its checkpoint has files Pi changed since that can be put
   * back, the view asks "also restore files?" with the same preview (planned by the same rules).
   * Resolves with the choice and the plan shown; "keep" without asking when there is nothing to
   * restore (no checkpoint, or every file would be skipped).
   */
  async askAlsoRestore(request: BranchOfferRequest, send: (offer: FilesOffer | null) => void): Promise<{ choice: OfferChoice; plan?: RestorePlan }> {
    const plan = await this.checkpoints.plan(request.chatId, request.markId);
    if (!plan || plan.files.length === 0) return { choice: "keep" };
    this.offer?.answer("cancel"); // a newer question replaces an unanswered one
    const id = ++this.offerIds;
    const choice = await new Promise<OfferChoice>((resolve) => {
      this.offer = { id, plan, answer: resolve };
      send({
        id,
        action: request.action,
        messageIndex: request.messageIndex,
        messageNumber: request.number,
        messageText: request.text,
        files: plan.files.map((f) => ({ path: f.path, piDid: f.piDid })),
        skipped: plan.skipped.map((f) => ({ path: f.path, piDid: f.piDid, reason: f.reason })),
        ...(request.edit ? { edit: request.edit } : {}),
      });
    });
    if (this.offer?.id === id) this.offer = undefined;
    send(null);
    return { choice, plan };
  }

  /** The view's answer to offer `id`; false for an id no longer asked. */
  answerOffer(id: number, choice: OfferChoice): boolean {
    if (this.offer?.id !== id) return false;
    const { answer } = this.offer;
    this.offer = undefined;
    answer(choice);
    return true;
  }

  /** Any open question goes (another chat is shown). */
  dropOffer(): void {
    this.offer?.answer("cancel");
  }

  /** A file of offer `id` as a diff; false when the offer or the file is not known. */
  async openOfferDiff(id: number, path: string): Promise<boolean> {
    const offer = this.offer;
    const file = offer?.id === id ? offer.plan.files.find((f) => f.path === path) : undefined;
    if (!offer || !file) return false;
    await this.openDiff(file, offer.plan);
    return true;
  }

  /**
   * "Restore files and retry/send": the restore of the plan the user saw (a file changed since is
   * skipped), the notice with *Redo changes*; the note is the caller's (it goes into the new branch).
   */
  async restoreForBranch(
    request: RestoreRequest,
    plan: RestorePlan,
    redoNote: (outcome: RestoreOutcome, redo: boolean) => Promise<void>,
  ): Promise<RestoreOutcome | undefined> {
    const outcome = await this.checkpoints.restore(request.chatId, request.markId, plan);
    if (!outcome) return undefined;
    this.log(
      `checkpoints: restored to ${request.markId} before a branch: ${outcome.restored.length} put back, ${outcome.deleted.length} deleted, ${outcome.skipped.length} skipped`,
    );
    void this.offerRedo(request, outcome, redoNote);
    return outcome;
  }

  dispose(): void {
    this.offer?.answer("cancel");
    for (const d of this.disposables) d.dispose();
  }
}
