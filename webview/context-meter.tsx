// The context meter: how full the model's context is ("41.2k / 200k"), in the warning colour
// from 80 % of the window. Its popover gives the tokens and cost of the last turn and of the
// chat, why the last request was smaller than the transcript, and the Compact / Show Model
// Context buttons. Self-contained: the header places it wherever it likes.
import { useEffect, useRef, useState } from "preact/hooks";
import { formatCost, formatTokens, METER_WARNING_SHARE, type ContextMeter, type FixedParts, type UsageFigures } from "../src/shared/context-meter";
import { plural } from "../src/shared/format";
import { memo } from "./memo";
import { post } from "./vscode-api";
import { groupDigits } from "./format";

export const ContextMeterButton = memo(function ContextMeterButton(props: { meter: ContextMeter | undefined; running: boolean }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const meter = props.meter;
  if (!meter) return null;
  const share = meter.window ? meter.tokens / meter.window : 0;
  const warn = share >= METER_WARNING_SHARE;
  // A window nobody said (the server did not, piChat.contextWindow is unset) is said to be unknown, not guessed.
  const total = meter.window ? ` / ${formatTokens(meter.window)}` : meter.windowUnknown ? " / window unknown" : "";
  const label = `${meter.estimated ? "~" : ""}${formatTokens(meter.tokens)}${total}`;
  // An estimate (no usage reported yet, or a server that reports none) says so in words, and "~" in the label.
  const ofWindow = meter.window
    ? ` of ${groupDigits(meter.window)} (${Math.round(share * 100)}%)`
    : meter.windowUnknown
      ? "; the model's context window is unknown"
      : "";
  const spoken = `Context ${meter.estimated ? "estimated at about " : ""}${groupDigits(meter.tokens)} tokens${ofWindow}${warn ? ", nearly full" : ""}${meter.lean ? ", lean mode on" : ""}`;
  const visible = meter.lean ? `${label} lean` : label;
  return (
    <span class="meter-anchor">
      <button
        type="button"
        ref={button}
        class={`meter${warn ? " meter-warn" : ""}`}
        data-testid="context-meter"
        title={spoken}
        // Starts with the visible text (label in name: a voice user says what they see).
        aria-label={`${visible}: ${spoken}. Show details`}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        {meter.window !== undefined && (
          <span class="meter-bar" aria-hidden="true">
            <span class="meter-fill" style={{ width: `${Math.min(100, Math.round(share * 100))}%` }} />
          </span>
        )}
        <span class="meter-label">{label}</span>
        {meter.lean && (
          <span class="meter-lean" data-testid="meter-lean" title="Lean mode: a short prompt and the essential tools (piChat.leanMode)">
            lean
          </span>
        )}
      </button>
      {open && (
        <MeterDetails
          meter={meter}
          running={props.running}
          onClose={(refocus) => {
            setOpen(false);
            if (refocus) button.current?.focus();
          }}
          anchor={button}
        />
      )}
    </span>
  );
});

function MeterDetails(props: { meter: ContextMeter; running: boolean; onClose: (refocus: boolean) => void; anchor: { current: HTMLElement | null } }) {
  const panel = useRef<HTMLDivElement>(null);
  const { meter } = props;
  useEffect(() => {
    panel.current?.querySelector<HTMLButtonElement>("button:not(:disabled)")?.focus();
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node;
      if (!panel.current?.contains(target) && !props.anchor.current?.contains(target)) props.onClose(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, []);
  return (
    <div
      class="meter-details"
      ref={panel}
      role="dialog"
      aria-label="Context and usage"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          props.onClose(true);
        } else if (e.key === "Tab" && panel.current) trapTab(e, panel.current);
      }}
    >
      <div class="meter-headline">
        {meter.estimated ? "About " : ""}
        {groupDigits(meter.tokens)} tokens in context
        {meter.window !== undefined && ` of ${groupDigits(meter.window)}`}
      </div>
      {/* What each figure counts, so the header, this table and the model-context document reconcile. */}
      <div class="meter-note" data-testid="meter-counts">
        {meter.estimated
          ? "The header's figure: an estimate of what the next request sends (no provider count yet)."
          : "The header's figure: the last request as the provider counted it, plus its answer and anything added since."}
      </div>
      {meter.windowUnknown && (
        <div class="meter-note meter-note-warn" data-testid="meter-window-unknown">
          The server did not say its context window, so Pi Chat cannot tell how full it is. Set piChat.contextWindow to the server's window (llama-server -c,
          Ollama num_ctx).
        </div>
      )}
      {meter.threshold !== undefined && (
        <div class="meter-note">
          Compacts above {groupDigits(meter.threshold)} tokens: the window less what piChat.compaction.reserveTokens keeps for the answer.
        </div>
      )}
      {meter.fixed && (
        <div class="meter-note" data-testid="meter-fixed">
          {fixedPartsText(meter.fixed)}
        </div>
      )}
      {meter.reduced?.kind === "compacted" && (
        <div class="meter-note" data-testid="meter-reduced">
          Compacted: {meter.reduced.messages} earlier messages are summarized ({groupDigits(meter.reduced.tokensBefore)} →{" "}
          {groupDigits(meter.reduced.tokensAfter)} tokens).
        </div>
      )}
      {meter.reduced?.kind === "trimmed" && (
        <div class="meter-note meter-note-warn" data-testid="meter-reduced">
          Trimmed: {meter.reduced.messages} oldest messages were left out of the last request (no summary could be made).
        </div>
      )}
      <table class="meter-table">
        <thead>
          <tr>
            <th scope="col">
              <span class="sr-only">Figure</span>
            </th>
            <th scope="col" title="Every request since your last message, added up">
              Last turn
            </th>
            <th scope="col" title="Every request of this chat, added up">
              Chat
            </th>
          </tr>
        </thead>
        <tbody>
          <UsageRow label="Input" pick={(u) => u.input} meter={meter} />
          <UsageRow label="Output" pick={(u) => u.output} meter={meter} />
          <UsageRow label="Cache read" pick={(u) => u.cacheRead} meter={meter} />
          <UsageRow label="Cache write" pick={(u) => u.cacheWrite} meter={meter} />
          {meter.priced && (
            <tr>
              <th scope="row">Cost</th>
              <td>{meter.lastTurn ? formatCost(meter.lastTurn.cost) : "–"}</td>
              <td>{formatCost(meter.chat.cost)}</td>
            </tr>
          )}
        </tbody>
      </table>
      <div class="meter-note" data-testid="meter-usage-note">
        Usage adds up every request: a turn with tool calls sends the context once per request, so its input is larger than the context.
      </div>
      {!meter.priced && <div class="meter-note">No prices are known for this model.</div>}
      <div class="meter-actions">
        <button
          type="button"
          class="button secondary"
          disabled={props.running}
          title={props.running ? "Wait for the reply to finish" : "Summarize the earlier conversation now"}
          onClick={() => {
            props.onClose(true);
            post({ type: "workbench/runCommand", command: "compact" });
          }}
        >
          Compact now
        </button>
        <button
          type="button"
          class="button secondary"
          onClick={() => {
            props.onClose(true);
            post({ type: "workbench/runCommand", command: "showModelContext" });
          }}
        >
          Show model context
        </button>
      </div>
    </div>
  );
}

/** Tab and Shift+Tab go round the panel's buttons while it is open (Escape leaves it). */
function trapTab(e: KeyboardEvent, panel: HTMLElement): void {
  const buttons = Array.from(panel.querySelectorAll<HTMLButtonElement>("button:not(:disabled)"));
  const first = buttons[0];
  const last = buttons[buttons.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (e.shiftKey ? active === first || !panel.contains(active) : active === last) {
    e.preventDefault();
    (e.shiftKey ? last : first).focus();
  }
}

function UsageRow(props: { label: string; pick: (u: UsageFigures) => number; meter: ContextMeter }) {
  return (
    <tr>
      <th scope="row">{props.label}</th>
      <td>{props.meter.lastTurn ? groupDigits(props.pick(props.meter.lastTurn)) : "–"}</td>
      <td>{groupDigits(props.pick(props.meter.chat))}</td>
    </tr>
  );
}

/** "Sent with every request: instructions ~1,200, 7 tools ~2,400, 12 MCP tools ~5,100." */
export function fixedPartsText(fixed: FixedParts): string {
  const parts = [`instructions ~${groupDigits(fixed.instructions)}`];
  if (fixed.toolCount > 0 || fixed.tools > 0) parts.push(`${plural(fixed.toolCount, "tool")} ~${groupDigits(fixed.tools)}`);
  if (fixed.mcpToolCount > 0) parts.push(`${plural(fixed.mcpToolCount, "MCP tool")} ~${groupDigits(fixed.mcpTools)}`);
  const listed = fixed.mcpListedCount ? ` ${plural(fixed.mcpListedCount, "more MCP tool")} only listed by name (loaded on demand).` : "";
  return `Sent with every request, in tokens: ${parts.join(", ")}.${listed}`;
}
