// Tool cards (running → success | error, keyed by toolCallId) and approval cards (the
// permission gate asking before an edit). `details` is structured UI data from the tool:
// read defensively. Looked at: `diff`, `path`, `startLine`/`endLine` (read_file),
// `firstChangedLine`, `additions`/`deletions` (edit_file), `truncated`.
import { useEffect, useState } from "preact/hooks";
import type { ApprovalItem, ToolItem, ToolStatus } from "../src/shared/chat-items";
import { CheckIcon, CloseIcon, DiffIcon, ErrorIcon, ShieldIcon, Spinner, ToolIcon } from "./icons";
import { DiscoveryHead, DiscoveryResults, readDiscovery } from "./discovery-cards";
import { Collapsible, FileLink, rangeLabel } from "./parts";
import { EditProblems } from "./problems";
import { post } from "./vscode";

const MAX_RESULT_CHARS = 20_000;
const DIFF_LINES_SHOWN = 400;

interface ToolDetails {
  diff?: string;
  path?: string;
  startLine?: number;
  endLine?: number;
  additions?: number;
  deletions?: number;
  truncated?: boolean;
}

function readDetails(details: unknown): ToolDetails {
  if (typeof details !== "object" || details === null) return {};
  const d = details as Record<string, unknown>;
  const out: ToolDetails = {};
  if (typeof d.diff === "string" && d.diff !== "") out.diff = d.diff;
  if (typeof d.path === "string" && d.path !== "") out.path = d.path;
  if (isLine(d.startLine)) out.startLine = d.startLine;
  else if (isLine(d.firstChangedLine)) out.startLine = d.firstChangedLine;
  if (isLine(d.endLine)) out.endLine = d.endLine;
  if (isCount(d.additions) && isCount(d.deletions)) {
    out.additions = d.additions;
    out.deletions = d.deletions;
  }
  if (d.truncated === true) out.truncated = true;
  return out;
}

function isLine(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** The path a call is about, when its arguments name one. */
function argPath(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const a = args as Record<string, unknown>;
  for (const key of ["path", "file_path", "filePath", "file"]) {
    const value = a[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

/** One line saying what a call without a path was asked to do. */
function argSummary(args: unknown): string {
  if (typeof args !== "object" || args === null) return "";
  const a = args as Record<string, unknown>;
  for (const key of ["command", "pattern", "query", "url"]) {
    const value = a[key];
    if (typeof value === "string" && value !== "") return clip(value.split("\n")[0] ?? "", 80);
  }
  const json = JSON.stringify(args);
  return json === "{}" ? "" : clip(json, 80);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text;
}

const STATUS_TEXT: Record<ToolStatus, string> = { pending: "Waiting", running: "Running", success: "Done", error: "Failed" };

function StatusIcon({ status }: { status: ToolStatus }) {
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

export function ToolCard({ item }: { item: ToolItem }) {
  const details = readDetails(item.details);
  const discovery = readDiscovery(item);
  // A discovery tool's path is a folder to look in, not a file to open.
  const path = discovery ? undefined : (details.path ?? argPath(item.args));
  const summary = discovery ? discovery.asked : path === undefined ? argSummary(item.args) : "";
  const result = item.resultText ?? "";
  return (
    <article class={`item card tool tool-${item.status}`} data-item={item.id} aria-label={`${item.name} ${path ?? summary}: ${STATUS_TEXT[item.status]}`}>
      <div class="card-head">
        <StatusIcon status={item.status} />
        <ToolIcon class="muted" />
        <span class="tool-name">{item.name}</span>
        {discovery ? <DiscoveryHead discovery={discovery} /> : path !== undefined ? <FileLink path={path} class="tool-path" /> : summary && <code class="tool-arg">{summary}</code>}
        {path !== undefined && details.startLine !== undefined && (
          <FileLink path={path} line={details.startLine} label={rangeLabel(details.startLine, details.endLine)} class="tool-range" />
        )}
        {details.truncated && <span class="tool-note">truncated</span>}
        {details.additions !== undefined && (
          <span class="diff-stat" aria-label={`${details.additions} added, ${details.deletions} removed`}>
            <span class="diff-stat-add">+{details.additions}</span> <span class="diff-stat-del">−{details.deletions}</span>
          </span>
        )}
        <span class="grow" />
        <span class="tool-status">{STATUS_TEXT[item.status]}</span>
        {details.diff !== undefined && (
          <button type="button" class="text-button" onClick={() => post({ type: "openDiff", toolCallId: item.id })}>
            <DiffIcon /> Open diff
          </button>
        )}
      </div>
      {details.diff !== undefined && <DiffView diff={details.diff} />}
      <EditProblems details={item.details} path={path} />
      {discovery && item.status === "success" && <DiscoveryResults discovery={discovery} />}
      {result !== "" && (
        <Collapsible id={`${item.id}:result`} class="tool-result" summary={item.status === "error" ? "Error" : "Result"} defaultOpen={item.status === "error"}>
          <pre>{result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}\n\u2026 ${result.length - MAX_RESULT_CHARS} more characters` : result}</pre>
        </Collapsible>
      )}
    </article>
  );
}

export function ApprovalCard({ item }: { item: ApprovalItem }) {
  if (item.state !== "pending") return <DecidedApproval item={item} />;
  return <PendingApproval item={item} />;
}

function DecidedApproval({ item }: { item: ApprovalItem }) {
  const allowed = item.state === "allowed";
  return (
    <article class={`item card approval approval-${item.state}`} data-item={item.id} aria-label={`${item.toolName} ${allowed ? "allowed" : "denied"}`}>
      <div class="card-head">
        {allowed ? <CheckIcon class="ok" /> : <CloseIcon class="bad" />}
        <span class="decision">{allowed ? "Allowed" : "Denied"}</span>
        <span class="tool-name">{item.toolName}</span>
        {item.path !== undefined && <FileLink path={item.path} class="tool-path" />}
      </div>
      {item.reason !== undefined && item.reason !== "" && <p class="approval-reason">{item.reason}</p>}
      {item.secret ? (
        <p class="approval-secret">{item.diff}</p>
      ) : item.diff !== undefined && item.diff !== "" && (
        <Collapsible id={`${item.id}:diff`} class="tool-result" summary="Proposed change">
          <DiffView diff={item.diff} />
        </Collapsible>
      )}
    </article>
  );
}

type Decision = "allow" | "deny" | "allowForChat";

function PendingApproval({ item }: { item: ApprovalItem }) {
  const [reason, setReason] = useState("");
  const [sent, setSent] = useState<Decision | null>(null);
  // The host answers with a new item state; if it does not, let the user try again.
  useEffect(() => {
    if (sent === null) return;
    const timer = setTimeout(() => setSent(null), 4000);
    return () => clearTimeout(timer);
  }, [sent]);

  const decide = (decision: Decision) => {
    if (sent !== null) return;
    setSent(decision);
    const why = reason.trim();
    post(decision === "deny" && why !== "" ? { type: "approval", toolCallId: item.toolCallId, decision, reason: why } : { type: "approval", toolCallId: item.toolCallId, decision });
  };
  const reasonId = `reason-${item.toolCallId}`;
  return (
    <article class="item card approval approval-pending" data-item={item.id} aria-label={`Approval needed: ${item.toolName}${item.path ? ` ${item.path}` : ""}`}>
      <div class="card-head">
        <ShieldIcon class="accent" />
        <span class="approval-question">
          Allow <span class="tool-name">{item.toolName}</span>
          {item.path !== undefined && (
            <>
              {" "}
              to change <FileLink path={item.path} class="tool-path" />
            </>
          )}
          ?
        </span>
      </div>
      {item.protection !== undefined && <p class="approval-protection">{item.protection}</p>}
      {item.secret ? (
        <p class="approval-secret">
          {item.diff}{" "}
          <button type="button" class="text-button" onClick={() => post({ type: "openDiff", toolCallId: item.toolCallId })}>
            <DiffIcon /> Show the change in the editor
          </button>
        </p>
      ) : (
        item.diff !== undefined && item.diff !== "" && <DiffView diff={item.diff} />
      )}
      <div class="approval-form">
        <input
          id={reasonId}
          class="reason-input"
          type="text"
          maxLength={2000}
          placeholder="Reason for denying (optional, sent to Pi)"
          aria-label="Reason for denying (optional)"
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.isComposing) {
              e.preventDefault();
              decide("deny");
            }
          }}
        />
        <div class="approval-actions">
          <button type="button" class="button primary" disabled={sent !== null} onClick={() => decide("allow")}>
            Allow
          </button>
          <button type="button" class="button secondary" disabled={sent !== null} onClick={() => decide("deny")}>
            Deny
          </button>
          <button type="button" class="button secondary" disabled={sent !== null} onClick={() => decide("allowForChat")}>
            Allow edits for this chat
          </button>
        </div>
      </div>
    </article>
  );
}

type DiffLine = { kind: "add" | "del" | "ctx" | "hunk" | "meta"; text: string; line?: number };

/** Parses a unified diff into display lines, numbering added/context lines by the new file and removed ones by the old. */
export function parseUnifiedDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const text of diff.replace(/\n$/, "").split("\n")) {
    const hunk = text.match(/^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      inHunk = true;
      out.push({ kind: "hunk", text });
    } else if (!inHunk || text.startsWith("\\")) {
      // File headers (Index:, ===, ---, +++) carry nothing the card does not already say.
      if (!inHunk && /^(Index: |={3,}|--- |\+\+\+ |diff )/.test(text)) continue;
      out.push({ kind: "meta", text });
    } else if (text.startsWith("+")) {
      out.push({ kind: "add", text: text.slice(1), line: newLine++ });
    } else if (text.startsWith("-")) {
      out.push({ kind: "del", text: text.slice(1), line: oldLine++ });
    } else {
      out.push({ kind: "ctx", text: text.slice(1), line: newLine++ });
      oldLine++;
    }
  }
  return out;
}

const SIGN: Record<DiffLine["kind"], string> = { add: "+", del: "-", ctx: " ", hunk: "", meta: "" };

export function DiffView({ diff }: { diff: string }) {
  const [all, setAll] = useState(false);
  const lines = parseUnifiedDiff(diff);
  const shown = all ? lines : lines.slice(0, DIFF_LINES_SHOWN);
  const added = lines.filter((l) => l.kind === "add").length;
  const removed = lines.filter((l) => l.kind === "del").length;
  return (
    <div class="diff" role="group" aria-label={`Diff: ${added} lines added, ${removed} removed`}>
      <div class="diff-lines">
        {shown.map((l, i) => (
          <div key={i} class={`diff-line diff-${l.kind}`}>
            <span class="diff-num" aria-hidden="true">
              {l.line ?? ""}
            </span>
            <span class="diff-sign" aria-hidden="true">
              {SIGN[l.kind]}
            </span>
            <span class="diff-text">{l.kind === "add" ? <span class="sr-only">added: </span> : l.kind === "del" ? <span class="sr-only">removed: </span> : null}{l.text}</span>
          </div>
        ))}
      </div>
      {shown.length < lines.length && (
        <button type="button" class="text-button diff-more" onClick={() => setAll(true)}>
          Show {lines.length - shown.length} more lines
        </button>
      )}
    </div>
  );
}
