// Tool cards, one per call, keyed by toolCallId: running → (waiting for your decision, with the
// diff and the question) → done / applied / denied / failed, in place. `details` is structured
// UI data from the tool: read defensively. Looked at: `path`, `startLine`/`endLine` (read_file),
// `firstChangedLine`, `additions`/`deletions` (edit_file), `truncated`. An edit's diff comes as
// hunks the host built (`item.diff`, `approval.diff`), never as text to parse.
import type { ToolItem, ToolStatus } from "../../src/shared/chat-items";
import { secretDiffSummary } from "../../src/shared/structured-diff";
import { ApprovalForm, onApprovalShortcut } from "./approval";
import { DiffView } from "./diff-view";
import { PendingEditReview } from "./hunk-review";
import { hunkNames } from "../../src/shared/partial-patch";
import { CheckIcon, CloseIcon, DiffIcon, ErrorIcon, ShieldIcon, Spinner, ToolIcon } from "../icons";
import { DiscoveryHead, DiscoveryResults, discoveryName, readDiscovery } from "./discovery-cards";
import { Collapsible } from "./collapsible";
import { FileLink } from "./file-link";
import { EditProblems } from "./problems";
import { argPath, argSummary, linesInWords, toolStatusText, toolTitle, toolVerb } from "./tool-text";
import { post } from "../vscode-api";

const MAX_RESULT_CHARS = 20_000;
/** No hunk rejected: one array, so the card's memo holds between renders. */
const NO_HUNKS: readonly number[] = [];
const NO_EDITS: readonly { hunk: number; text?: string }[] = [];

interface ToolDetails {
  path?: string;
  startLine?: number;
  endLine?: number;
  additions?: number;
  deletions?: number;
  truncated?: boolean;
  /** read_file on an image: what it is and what Pi was given. */
  image?: string;
}

/** "PNG 3000×1000, shown to Pi at 2000×667" from read_file's details.image; read defensively. */
function imageNote(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const i = value as Record<string, unknown>;
  const type = typeof i.mimeType === "string" ? i.mimeType.replace(/^image\//, "").toUpperCase() : "image";
  const px = (w: unknown, h: unknown) => (isCount(w) && isCount(h) && w > 0 && h > 0 ? ` ${w}×${h}` : "");
  if (typeof i.notSent === "string") return `${type}${px(i.width, i.height)}, not shown to Pi: ${i.notSent}`;
  const sent = typeof i.sent === "object" && i.sent !== null ? (i.sent as Record<string, unknown>) : undefined;
  if (sent?.scaled === true) return `${type}${px(i.width, i.height)}, shown to Pi at${px(sent.width, sent.height)}`;
  return `${type}${px(i.width, i.height)}`;
}

function readDetails(details: unknown): ToolDetails {
  if (typeof details !== "object" || details === null) return {};
  const d = details as Record<string, unknown>;
  const out: ToolDetails = {};
  if (typeof d.path === "string" && d.path !== "") out.path = d.path;
  if (isLine(d.startLine)) out.startLine = d.startLine;
  else if (isLine(d.firstChangedLine)) out.startLine = d.firstChangedLine;
  if (isLine(d.endLine)) out.endLine = d.endLine;
  if (isCount(d.additions) && isCount(d.deletions)) {
    out.additions = d.additions;
    out.deletions = d.deletions;
  }
  if (d.truncated === true) out.truncated = true;
  const image = imageNote(d.image);
  if (image !== undefined) out.image = image;
  return out;
}

function isLine(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function StatusIcon({ item }: { item: ToolItem }) {
  if (item.approval?.state === "pending") return <ShieldIcon class="accent" />;
  if (item.approval?.state === "denied") return <CloseIcon class="bad" />;
  const status: ToolStatus = item.status;
  switch (status) {
    case "pending":
      return <span class="status-dot" aria-hidden="true" />;
    case "running":
      return <Spinner />;
    case "success":
      return <CheckIcon class="ok" />;
    case "error":
      return <ErrorIcon class="bad" />;
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: a tool call's states (asking, running, done, failed) each add their own lines to one card
export function ToolCard({ item }: { item: ToolItem }) {
  const details = readDetails(item.details);
  const approval = item.approval;
  const discovery = readDiscovery(item);
  // A discovery tool's path is a folder to look in, not a file to open.
  const path = discovery ? undefined : (details.path ?? approval?.path ?? argPath(item.args));
  const summary = discovery ? discovery.asked : path === undefined ? argSummary(item.args) : "";
  const result = item.resultText ?? "";
  const pending = approval?.state === "pending";
  const denied = approval?.state === "denied";
  // An edit allowed in part: the card names the rejected hunks (its diff is then what was written).
  const partly = approval?.state === "allowed" && ((approval.rejectedHunks?.length ?? 0) > 0 || (approval.editedHunks?.length ?? 0) > 0);
  // A secret file's (.env*) change is only a count of changed lines: never drawn as a diff.
  const change = item.diff ?? approval?.diff;
  const hunks = approval?.secret || change?.kind !== "hunks" ? undefined : change.hunks;
  const secretChange = change?.kind === "secret" ? change.changedLines : 0;
  const status = toolStatusText(item);
  const stateClass = pending ? "tool-waiting" : denied ? "tool-denied" : `tool-${item.status}`;
  return (
    <article
      class={`item card tool ${stateClass}`}
      data-item={item.id}
      data-approval={approval?.state}
      aria-label={discovery ? discoveryName(item, discovery, status) : `${toolTitle(item)}: ${status}`}
      onKeyDown={pending ? onApprovalShortcut : undefined}
    >
      <div class="card-head">
        <StatusIcon item={item} />
        <ToolIcon class="muted" />
        <span class="tool-verb" title={`Tool: ${item.name}`}>
          {toolVerb(item.name)}
        </span>
        {discovery ? (
          <DiscoveryHead discovery={discovery} />
        ) : path !== undefined ? (
          <FileLink path={path} class="tool-path" />
        ) : (
          summary && <code class="tool-arg">{summary}</code>
        )}
        {path !== undefined && details.startLine !== undefined && (
          <FileLink path={path} line={details.startLine} label={linesInWords(details.startLine, details.endLine)} class="tool-range" />
        )}
        {details.truncated && <span class="tool-note">truncated</span>}
        {details.image !== undefined && <span class="tool-note">{details.image}</span>}
        {details.additions !== undefined && (
          <span class="diff-stat">
            <span class="diff-stat-add" aria-hidden="true">
              +{details.additions}
            </span>{" "}
            <span class="diff-stat-del" aria-hidden="true">
              −{details.deletions}
            </span>
            <span class="sr-only">
              {details.additions} added, {details.deletions} removed
            </span>
          </span>
        )}
        <span class="grow" />
        {approval?.state === "allowed" && (
          <span class="decision decision-allowed">{(approval.rejectedHunks?.length ?? 0) > 0 ? "Partly allowed" : partly ? "Allowed, edited" : "Allowed"}</span>
        )}
        <span class="tool-status">{capitalized(status)}</span>
        {pending && !approval.secret && (
          <button type="button" class="text-button" onClick={() => post({ type: "editor/openDiff", toolCallId: item.id })}>
            <DiffIcon /> Open diff
          </button>
        )}
      </div>
      {denied && approval.reason !== undefined && approval.reason !== "" && <p class="approval-reason">{approval.reason}</p>}
      {pending && approval.protection !== undefined && <p class="approval-protection">{approval.protection}</p>}
      {approval?.secret ? (
        <p class="approval-secret">
          {secretDiffSummary(secretChange)}{" "}
          {pending && (
            <button type="button" class="text-button" onClick={() => post({ type: "editor/openDiff", toolCallId: item.id })}>
              <DiffIcon /> Show the change in the editor
            </button>
          )}
        </p>
      ) : (
        hunks !== undefined &&
        (denied ? (
          <Collapsible id={`${item.id}:diff`} class="tool-result" summary="Proposed change">
            <DiffView hunks={hunks} />
          </Collapsible>
        ) : pending ? (
          <PendingEditReview toolCallId={item.id} hunks={hunks} rejected={approval.rejectedHunks ?? NO_HUNKS} edited={approval.editedHunks ?? NO_EDITS} />
        ) : (
          <DiffView hunks={hunks} />
        ))
      )}
      {partly && <p class="approval-reason">{partlyText(approval.rejectedHunks ?? [], approval.editedHunks ?? [], approval.reason)}</p>}
      <EditProblems details={item.details} path={path} />
      {pending && hunks === undefined && <ApprovalForm toolCallId={item.id} cardId={item.id} />}
      {discovery && item.status === "success" && <DiscoveryResults discovery={discovery} />}
      {result !== "" && !denied && (
        <Collapsible id={`${item.id}:result`} class="tool-result" summary={item.status === "error" ? "Error" : "Result"} defaultOpen={item.status === "error"}>
          <div class="tool-call-name">
            Tool: <code>{item.name}</code>
          </div>
          <pre>
            {result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}\n\u2026 ${result.length - MAX_RESULT_CHARS} more characters` : result}
          </pre>
        </Collapsible>
      )}
    </article>
  );
}

/** "Hunk 2 rejected, not written: reason. Hunk 3 written as your text." under a partly allowed edit. */
function partlyText(rejected: readonly number[], edited: readonly { hunk: number }[], reason: string | undefined): string {
  const why = reason !== undefined && reason !== "" ? `: ${reason}` : ".";
  const parts = rejected.length > 0 ? [`${capitalized(hunkNames(rejected))} rejected, not written${why}`] : [];
  if (edited.length > 0) parts.push(`${capitalized(hunkNames(edited.map((e) => e.hunk)))} written as your text.`);
  return parts.join(" ");
}
