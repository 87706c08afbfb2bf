// The card of one MCP call: the server, the tool, its arguments (pretty JSON, long values folded by
// the host), the server's own annotations (shown as the server's words: they approve nothing), the
// question (Allow, Deny with a reason told to the model, Always allow <server>/<tool> in this
// workspace), then the result. `details` come from the tool (untrusted shapes): read defensively.
import { useState } from "preact/hooks";
import type { ApprovalItem, ToolItem } from "../../src/shared/chat-items";
import { AllowDenyButtons, DenyReasonInput, onApprovalShortcut, postDecision, useSentDecision } from "./approval";
import { focusAfterDecision } from "../focus";
import { CheckIcon, ErrorIcon, ShieldIcon, Spinner } from "../icons";
import { Collapsible } from "./collapsible";
import { DecisionLine } from "./decision-line";
import { ToolOutput } from "./tool-output";
import { VisibleText, visibleText } from "./visible-text";

type Decision = "allow" | "deny" | "allowAlways";

/** Server and tool from the approval, else from the agent-tool name (`mcp__<server>__<tool>`) and details. */
function callFacts(item: ToolItem): { server: string; tool: string; logFile: boolean } {
  const d = typeof item.details === "object" && item.details !== null ? (item.details as Record<string, unknown>) : {};
  const fromName = /^mcp__(.+?)__(.+)$/.exec(item.name);
  const server = item.approval?.mcp?.server ?? (typeof d.server === "string" ? d.server : (fromName?.[1] ?? "?"));
  const tool = item.approval?.mcp?.tool ?? (typeof d.tool === "string" ? d.tool : (fromName?.[2] ?? item.name));
  return { server, tool, logFile: typeof d.logFile === "string" };
}

function statusText(item: ToolItem): { text: string; tone: "ok" | "bad" | "muted" } {
  if (item.approval?.state === "pending") return { text: "Waiting for your approval", tone: "muted" };
  if (item.approval?.state === "denied") return { text: "Denied", tone: "bad" };
  if (item.status === "running" || item.status === "pending") return { text: "Running", tone: "muted" };
  return item.status === "error" ? { text: "Failed", tone: "bad" } : { text: "Done", tone: "ok" };
}

export function McpCard({ item }: { item: ToolItem }) {
  const facts = callFacts(item);
  const approval = item.approval;
  const pending = approval?.state === "pending";
  const state = statusText(item);
  // The host folds long strings for the card; the call's own arguments are all here, one click away.
  const whole = JSON.stringify(item.args ?? {}, null, 2);
  const folded = approval?.mcp?.arguments;
  const [showAll, setShowAll] = useState(false);
  const cut = folded !== undefined && folded !== whole;
  const args = showAll || folded === undefined ? whole : folded;
  const argsId = `${item.id}:arguments`;
  const result = item.resultText ?? "";
  return (
    <article
      class={`item card tool mcp-card tool-${item.status}${pending ? " tool-waiting" : ""}`}
      data-item={item.id}
      data-approval={approval?.state}
      aria-label={`MCP tool ${visibleText(facts.tool)} of server ${visibleText(facts.server)}: ${state.text}`}
      onKeyDown={pending ? onApprovalShortcut : undefined}
    >
      <div class="card-head">
        {pending ? (
          <ShieldIcon class="accent" />
        ) : state.text === "Running" ? (
          <Spinner />
        ) : state.tone === "ok" ? (
          <CheckIcon class="ok" />
        ) : (
          <ErrorIcon class="bad" />
        )}
        <span class="tool-name">
          <span class="mcp-server">
            <VisibleText text={facts.server} />
          </span>{" "}
          /{" "}
          <span class="mcp-tool">
            <VisibleText text={facts.tool} />
          </span>
        </span>
        <span class="tool-note">MCP</span>
        <span class="grow" />
        <span class={`tool-status command-outcome command-${state.tone}`}>{state.text}</span>
      </div>
      {approval?.mcp?.annotations && approval.mcp.annotations.length > 0 && (
        <p class="tool-note mcp-annotations">
          The server describes this tool as: {visibleText(approval.mcp.annotations.join(", "))} (its own words; they allow nothing).
        </p>
      )}
      <Collapsible id={`${item.id}:args`} class="tool-args" summary="Arguments" defaultOpen={pending}>
        <pre class="mcp-arguments" id={argsId}>
          <VisibleText text={args} />
        </pre>
        {cut && (
          <button type="button" class="text-button show-all" aria-expanded={showAll} aria-controls={argsId} onClick={() => setShowAll(!showAll)}>
            {showAll ? "Fold long values again" : `Show all arguments (${whole.length.toLocaleString()} characters)`}
          </button>
        )}
      </Collapsible>
      {approval && approval.state !== "pending" && <DecisionLine approval={approval} ruleWords={(rule) => <>always, for {rule} in this workspace</>} />}
      {pending && approval && <McpQuestion approval={approval} server={facts.server} tool={facts.tool} cardId={item.id} />}
      {result !== "" && (
        <Collapsible id={`${item.id}:result`} class="tool-result" summary={item.status === "error" ? "Error" : "Result"} defaultOpen={item.status === "error"}>
          <ToolOutput text={result} toolCallId={item.id} hasLog={Boolean(facts.logFile)} />
        </Collapsible>
      )}
    </article>
  );
}

function McpQuestion({ approval, server, tool, cardId }: { approval: ApprovalItem; server: string; tool: string; cardId: string }) {
  const [reason, setReason] = useState("");
  const [sent, setSent] = useSentDecision<Decision>();
  const decide = (decision: Decision) => {
    if (sent !== null) return;
    setSent(decision);
    postDecision(approval.toolCallId, decision, reason);
    focusAfterDecision(cardId);
  };
  return (
    <fieldset class="approval-form">
      <legend class="approval-question">Run this MCP tool?</legend>
      <DenyReasonInput value={reason} onInput={setReason} onDeny={() => decide("deny")} />
      <div class="approval-actions">
        <AllowDenyButtons sent={sent !== null} onDecide={decide} />
        <button type="button" class="button secondary" data-decision="allowAlways" disabled={sent !== null} onClick={() => decide("allowAlways")}>
          Always allow {visibleText(server)}/{visibleText(tool)} in this workspace
        </button>
      </div>
    </fieldset>
  );
}
