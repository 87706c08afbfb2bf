// The card of one run_command call: the exact command and its folder, the question (Allow,
// Deny with a reason, Always allow a rule for this workspace), the live tail while it runs with
// Stop, then exit code, duration and the capped output, with the whole output one click away.
// What it says comes from command-facts.ts.
import type { ComponentChildren } from "preact";
import { useMemo, useState } from "preact/hooks";
import type { ApprovalItem, ToolItem, UserCommandItem } from "../../src/shared/chat-items";
import { DEFAULT_BACKGROUND_WAIT_MS } from "../../src/shared/background-state";
import { AllowDenyButtons, DenyReasonInput, onApprovalShortcut, postDecision, useSentDecision } from "./approval";
import { focusAfterDecision } from "../focus";
import { CheckIcon, ErrorIcon, ShieldIcon, Spinner, StopIcon } from "../icons";
import { Collapsible } from "./collapsible";
import { endOutcome, notRun, outcome, type Outcome, readFacts, runningOutcome } from "./command-facts";
import { DecisionLine } from "./decision-line";
import { capOutput, ToolOutput } from "./tool-output";
import { post } from "../vscode-api";
import { formatDuration } from "../../src/shared/format";
import { previewRules, type RulePreview as RulePreviewFacts } from "../../src/shared/command-rules";
import { VisibleText, visibleText } from "./visible-text";

/** The head and command line every command card shares: state icon, where, outcome, notes, Stop. */
function CommandHead(props: {
  state: "asking" | "running" | Outcome["tone"];
  /** Absent: no folder to name (a command refused before its folder was known). */
  where: string | undefined;
  whereTitle?: string;
  outcome: Outcome;
  notes: string[];
  stop?: ComponentChildren;
  command: string;
}) {
  return (
    <>
      <div class="card-head">
        {props.state === "asking" ? (
          <ShieldIcon class="accent" />
        ) : props.state === "running" ? (
          <Spinner />
        ) : props.state === "ok" ? (
          <CheckIcon class="ok" />
        ) : props.state === "bad" ? (
          <ErrorIcon class="bad" />
        ) : (
          <span class="status-dot" aria-hidden="true" />
        )}
        {props.where !== undefined && (
          <span class="command-folder" {...(props.whereTitle ? { title: props.whereTitle } : {})}>
            {props.where}
          </span>
        )}
        <span class="grow" />
        <span class={`tool-status command-outcome command-${props.outcome.tone}`}>{props.outcome.text}</span>
        {props.notes.map((note) => (
          <span class="tool-note" key={note}>
            {note}
          </span>
        ))}
        {props.stop}
      </div>
      <pre class="command-line">
        <span class="command-prompt" aria-hidden="true">
          ${" "}
        </span>
        <VisibleText text={props.command} />
      </pre>
    </>
  );
}

/** Stop for a run in the foreground (a run_command call, a `!cmd`): it stops the whole reply. */
function ForegroundStop() {
  return (
    <button type="button" class="button stop-button" aria-label="Stop the command" onClick={() => post({ type: "chat/stop" })}>
      <StopIcon /> Stop
    </button>
  );
}

/** Stop on a background command's card: the host checks the id is of the chat on screen and ends its whole tree. */
function BackgroundStop({ id, command }: { id: string; command: string }) {
  const [stopping, setStopping] = useState(false);
  return (
    <button
      type="button"
      class="button stop-button"
      aria-label={`Stop the background command ${visibleText(command)}`}
      title="Stop it and everything it started"
      disabled={stopping}
      onClick={() => {
        setStopping(true);
        post({ type: "command/stopBackground", id });
      }}
    >
      <StopIcon /> {stopping ? "Stopping\u2026" : "Stop"}
    </button>
  );
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: a command's states (asking, running, in the background, ended) each add their own lines to one card
export function CommandCard({ item }: { item: ToolItem }) {
  const facts = readFacts(item.args, item.details, item.progress);
  const command = facts.command ?? "";
  const refused = notRun(item, facts);
  // The folder the run resolved (or was asked about); no cwd means the one folder, except for a
  // refused call, which may have been refused for naming none (several folders): nothing to show.
  const cwd = facts.cwd ?? item.approval?.cwd ?? (refused ? undefined : ".");
  const where = cwd === undefined ? undefined : cwd === "." ? "workspace root" : cwd;
  const state = outcome(item, facts);
  const running = item.status === "running" && item.approval?.state !== "pending";
  const inBackground = item.background?.state === "running";
  const result = item.resultText ?? "";
  const pending = item.approval?.state === "pending";
  return (
    <article
      class={`item card tool command-card tool-${item.status}${pending ? " tool-waiting" : ""}`}
      data-item={item.id}
      data-approval={item.approval?.state}
      aria-label={`Command ${visibleText(command)}${where !== undefined ? ` in ${where}` : ""}: ${state.text}`}
      onKeyDown={pending ? onApprovalShortcut : undefined}
    >
      <CommandHead
        state={pending ? "asking" : running || inBackground ? "running" : state.tone}
        where={where}
        whereTitle="Runs in this folder of the workspace"
        outcome={state}
        notes={facts.via !== undefined && !pending ? [facts.via === "terminal" ? "in terminal" : "child process"] : []}
        stop={running ? <ForegroundStop /> : inBackground ? <BackgroundStop id={item.id} command={command} /> : undefined}
        command={command}
      />
      {item.approval && item.approval.state !== "pending" && <DecisionLine approval={item.approval} ruleWords={(rule) => <>by your rule {rule}</>} />}
      {pending && item.approval && <CommandQuestion approval={item.approval} />}
      {running && facts.tail !== undefined && facts.tail.length > 0 && (
        <pre class="command-tail" aria-live="off">
          {facts.tail.join("\n")}
        </pre>
      )}
      {!running && result !== "" && (
        <Collapsible
          id={`${item.id}:output`}
          class="tool-result"
          summary={
            refused
              ? "Why it did not run"
              : // A background start reports the output so far inside its text; it counts no lines.
                `Output${facts.totalLines !== undefined && facts.background === undefined ? ` (${facts.totalLines.toLocaleString()} lines${facts.cutLines ? `, ${facts.cutLines.toLocaleString()} cut for Pi` : ""})` : ""}`
          }
          defaultOpen={item.status === "error" || (facts.exitCode ?? 0) !== 0}
        >
          <ToolOutput text={result} toolCallId={item.id} hasLog={Boolean(facts.logFile)} />
        </Collapsible>
      )}
    </article>
  );
}

/** What a yes to a background run means: it keeps running, until when, and what Pi waits for. */
function BackgroundNote({ readyPattern }: { readyPattern: string | undefined }) {
  const wait = formatDuration(DEFAULT_BACKGROUND_WAIT_MS);
  return (
    <p class="tool-note background-note">
      It keeps running after Pi goes on, with a Stop button on this card, until it ends, you stop it, you leave this chat or VS Code closes.{" "}
      {readyPattern !== undefined ? (
        <>
          Pi goes on once a line matches <code class="ready-pattern">{readyPattern}</code>, or after {wait}.
        </>
      ) : (
        `Pi reads its first output after ${wait}.`
      )}
    </p>
  );
}

type Decision = "allow" | "deny" | "allowAlways";

/**
 * What the rules typed in the box would allow, before saving, decided by the matcher the host
 * uses: exactly the command, or (with a `*`) commands it would allow and commands that still ask.
 */
function RulePreview({ id, preview }: { id: string; preview: RulePreviewFacts }) {
  if (!preview.ok)
    return (
      <p id={id} class="rule-preview rule-invalid">
        {preview.reason}
      </p>
    );
  if (!preview.covers)
    return (
      <p id={id} class="rule-preview rule-invalid">
        These rules do not cover the command above: nothing would be saved.
      </p>
    );
  if (preview.exact)
    return (
      <p id={id} class="rule-preview">
        Allows exactly the command above, nothing added. Write * where its arguments may vary.
      </p>
    );
  return (
    <div id={id} class="rule-preview">
      <p>It would allow, for example:</p>
      <ul class="rule-examples rule-allows">
        {preview.allows.map((example) => (
          <li key={example}>
            <code>
              <VisibleText text={example} />
            </code>
          </li>
        ))}
      </ul>
      <p>It would still ask for:</p>
      <ul class="rule-examples rule-asks">
        {preview.asks.map((example) => (
          <li key={example.command}>
            <code>
              <VisibleText text={example.command} />
            </code>{" "}
            ({visibleText(example.reason)})
          </li>
        ))}
      </ul>
    </div>
  );
}

function CommandQuestion({ approval }: { approval: ApprovalItem }) {
  const [reason, setReason] = useState("");
  const suggested = (approval.suggestedRules ?? []).join("\n");
  const [rule, setRule] = useState(suggested);
  const [sent, setSent] = useSentDecision<Decision>();
  const decide = (decision: Decision) => {
    if (sent !== null) return;
    setSent(decision);
    postDecision(approval.toolCallId, decision, reason, rule);
    focusAfterDecision(approval.toolCallId);
  };
  const canRule = suggested !== "";
  const preview = useMemo(() => (canRule ? previewRules(rule, approval.command ?? "") : undefined), [canRule, rule, approval.command]);
  const previewId = `${approval.toolCallId}:rule-preview`;
  return (
    <div class="approval-form">
      <p class="approval-question">{approval.background ? "Start this command in the background?" : "Run this command?"}</p>
      {approval.background && <BackgroundNote readyPattern={approval.background.readyPattern} />}
      <DenyReasonInput value={reason} onInput={setReason} onDeny={() => decide("deny")} />
      <div class="approval-actions">
        <AllowDenyButtons sent={sent !== null} onDecide={decide} />
      </div>
      {canRule && preview ? (
        <div class="rule-form">
          <label class="rule-label">
            Always allow (one rule a line: exactly this command; write * where its arguments may vary)
            <textarea
              class="reason-input rule-input"
              rows={Math.min(4, Math.max(1, rule.split("\n").length))}
              maxLength={500}
              value={rule}
              aria-label="Allow rules, one a line"
              aria-describedby={previewId}
              onInput={(e) => setRule(e.currentTarget.value)}
            />
          </label>
          <RulePreview id={previewId} preview={preview} />
          <button type="button" class="button secondary" disabled={sent !== null || !preview.ok || !preview.covers} onClick={() => decide("allowAlways")}>
            Always allow in this workspace
          </button>
        </div>
      ) : (
        <p class="tool-note">
          {approval.ruleNote ?? "No rule can allow this command (it uses substitution, redirection to a file or other syntax that always asks)."}
        </p>
      )}
    </div>
  );
}

/** A command the user ran with `!cmd` / `!!cmd`: no question, the output, whether Pi gets it. */
export function UserCommandCard({ item }: { item: UserCommandItem }) {
  const state = item.running
    ? runningOutcome(item.elapsedMs)
    : endOutcome({
        end: item.cancelled ? "stopped" : "exited",
        exitCode: item.exitCode,
        ...(item.durationMs !== undefined ? { durationMs: item.durationMs } : {}),
      });
  return (
    <article
      class="item card tool command-card user-command"
      data-item={item.id}
      aria-label={`You ran ${visibleText(item.command)}${item.cwd !== undefined ? ` in ${item.cwd}` : ""}: ${state.text}`}
    >
      <CommandHead
        state={item.running ? "running" : state.tone}
        where={item.cwd !== undefined ? `You ran in ${item.cwd}` : "You ran"}
        outcome={state}
        notes={[item.excludeFromContext ? "not sent to Pi" : "sent to Pi with your next message"]}
        stop={item.running ? <ForegroundStop /> : undefined}
        command={item.command}
      />
      {item.output !== "" && <pre class={item.running ? "command-tail" : "command-tail command-output"}>{capOutput(item.output)}</pre>}
      {!item.running && item.logFile !== undefined && (
        <button type="button" class="text-button command-log" onClick={() => post({ type: "command/openOutput", toolCallId: item.id })}>
          Open the whole output
        </button>
      )}
    </article>
  );
}
