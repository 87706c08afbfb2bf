// One component per ChatItem kind. Every item is memoized on its (immutable) object, so a
// streamed delta re-renders only the item it changed; markdown of a finished block is cached
// by block object (bounded, see finalHtml), so moving an item from the live part into a settled chunk costs no parse.
import { Component, type ComponentChildren } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { ImageBaseContext, MessageImages } from "./composer/composer-images";
import type { AssistantBlock, AssistantItem, AttachmentItem, ChatItem, NoticeItem, SummaryItem, UserItem } from "../src/shared/chat-items";
import { ErrorIcon, FileIcon, InfoIcon, Spinner } from "./icons";
import { MarkdownStream, renderMarkdown } from "./markdown";
import { memo } from "./memo";
import { Collapsible } from "./cards/collapsible";
import { FileLink, rangeLabel } from "./cards/file-link";
import { ToolCard } from "./cards/tool-card";
import { CommandCard, UserCommandCard } from "./cards/command-card";
import { McpCard } from "./cards/mcp-card";
import { AnswerActions, ForkOnly, UserMessage } from "./branch-controls";
import type { FixCommandId } from "../src/shared/app-messages";
import { post } from "./vscode-api";
import { onNextFrame } from "./frame-pacing";
import { Lru } from "./lru";
import { clockTime, groupDigits } from "./format";

/** Finished blocks whose HTML is kept: a few screens' worth of answers at the window's overscan. */
const FINAL_HTML_KEPT = 300;

export const Item = memo(function Item({ item }: { item: ChatItem }) {
  return (
    <ItemBoundary item={item}>
      {item.summarized ? (
        // Still shown as it was; marked, because the model now gets the summary below instead.
        <div class="summarized" data-summarized="true" title="Summarized: the model gets the summary below instead of this">
          <ItemCard item={item} />
        </div>
      ) : (
        <ItemCard item={item} />
      )}
    </ItemBoundary>
  );
});

function ItemCard({ item }: { item: ChatItem }) {
  switch (item.kind) {
    case "user":
      return <UserCard item={item} />;
    case "attachment":
      return <AttachmentChip item={item} />;
    case "assistant":
      return <AssistantCard item={item} />;
    case "tool":
      return item.name === "run_command" ? <CommandCard item={item} /> : item.name.startsWith("mcp__") ? <McpCard item={item} /> : <ToolCard item={item} />;
    case "notice":
      return <NoticeCard item={item} />;
    case "userCommand":
      return <UserCommandCard item={item} />;
    case "summary":
      return <SummaryCard item={item} />;
  }
}

const TRIGGER_LABEL: Record<SummaryItem["trigger"], string> = {
  threshold: "the context was nearly full",
  overflow: "the model said the context was too long",
  manual: "compacted by hand",
};

function SummaryCard({ item }: { item: SummaryItem }) {
  if (item.state === "running") {
    return (
      <div class="item summary summary-running" data-item={item.id}>
        <Spinner /> <span class="summary-title">Compacting… writing a summary of the earlier conversation</span>
        <button type="button" class="button secondary summary-stop" onClick={() => post({ type: "chat/stop" })}>
          Stop
        </button>
      </div>
    );
  }
  const title = `Compacted ${groupDigits(item.tokensBefore ?? 0)} → ${groupDigits(item.tokensAfter ?? 0)} tokens · ${item.summarizedMessageCount ?? 0} messages`;
  return (
    <div class="item summary" data-item={item.id}>
      <Collapsible
        id={`${item.id}:summary`}
        class="summary-details"
        summary={
          <>
            <span class="summary-title">{title}</span>
            <span class="summary-why"> · {TRIGGER_LABEL[item.trigger]}</span>
          </>
        }
      >
        {item.instructions !== undefined && <div class="summary-instructions">Asked to keep: {item.instructions}</div>}
        <FinalMarkdown block={summaryBlock(item)} />
        <FileList title="Files read" files={item.readFiles ?? []} />
        <FileList title="Files modified" files={item.modifiedFiles ?? []} />
        {item.cost !== undefined && <div class="summary-cost">Summary request: ${item.cost.toFixed(4)}</div>}
      </Collapsible>
    </div>
  );
}

const summaryBlocks = new WeakMap<SummaryItem, AssistantBlock>();

function summaryBlock(item: SummaryItem): AssistantBlock {
  let block = summaryBlocks.get(item);
  if (!block) {
    block = { index: 0, type: "text", text: item.summary ?? "" };
    summaryBlocks.set(item, block);
  }
  return block;
}

function FileList({ title, files }: { title: string; files: readonly string[] }) {
  if (files.length === 0) return null;
  return (
    <div class="summary-files">
      <div class="summary-files-title">{title}</div>
      <ul>
        {files.map((file) => (
          <li key={file}>
            <FileLink path={file} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The heading that names a message ("You, 10:42"): hidden on screen, where the layout says who wrote it. */
function MessageHeading({ id, level, who, timestamp }: { id: string; level: 2 | 3; who: string; timestamp: number }) {
  const time = clockTime(timestamp);
  const Tag = level === 2 ? "h2" : "h3";
  return (
    <Tag id={`heading-${id}`} class="sr-only">
      {time ? `${who}, ${time}` : who}
    </Tag>
  );
}

function UserCard({ item }: { item: UserItem }) {
  const imageBase = useContext(ImageBaseContext);
  // Each user message starts a turn: its heading (h2) is where a screen-reader user jumps to.
  return (
    <article class="item user" data-item={item.id} aria-labelledby={`heading-${item.id}`}>
      <MessageHeading id={item.id} level={2} who="You" timestamp={item.timestamp} />
      <UserMessage item={item}>
        {item.images && <MessageImages images={item.images} base={imageBase} />}
        {item.text !== "" && <div class="user-text">{item.text}</div>}
      </UserMessage>
    </article>
  );
}

function AttachmentChip({ item }: { item: AttachmentItem }) {
  // A mention that carried text (problems, changes, terminal): its token, and what was cut.
  if (item.mention === "problems" || item.mention === "changes" || item.mention === "terminal") {
    return (
      <div class="item attachment" data-item={item.id}>
        <span class="chip mention-chip" title={item.note ?? item.path}>
          <span class="chip-label">{item.path.startsWith("@") ? item.path : `@problems:${item.path}`}</span>
          {item.note && <span class="chip-range">{item.note}</span>}
        </span>
      </div>
    );
  }
  return (
    <div class="item attachment" data-item={item.id}>
      <span class="chip">
        <FileIcon />
        <FileLink path={item.path} line={item.range?.startLine} />
        {item.range && <span class="chip-range">{rangeLabel(item.range.startLine, item.range.endLine)}</span>}
      </span>
    </div>
  );
}

function AssistantCard({ item }: { item: AssistantItem }) {
  const last = item.blocks[item.blocks.length - 1];
  // A message that only called tools: its tool cards say everything. A failed request that wrote
  // nothing likewise: the error notice after it is the one card about it (what, why, what to do).
  if (
    !item.isStreaming &&
    item.blocks.every((b) => b.type === "text" && b.text.trim() === "") &&
    item.stopReason !== "aborted" &&
    item.stopReason !== "length"
  ) {
    return <ForkOnly item={item} />;
  }
  return (
    <article
      class={`item assistant${item.isStreaming ? " streaming" : ""}`}
      data-item={item.id}
      aria-labelledby={`heading-${item.id}`}
      aria-busy={item.isStreaming ? "true" : undefined}
    >
      <MessageHeading id={item.id} level={3} who="Pi" timestamp={item.timestamp} />
      {item.blocks.map((block) =>
        block.type === "thinking" ? (
          <Thinking key={block.index} id={`${item.id}:${block.index}`} block={block} active={item.isStreaming && block === last} />
        ) : item.isStreaming && block === last ? (
          <StreamingMarkdown key={block.index} text={block.text} />
        ) : (
          <FinalMarkdown key={block.index} block={block} />
        ),
      )}
      {item.isStreaming && item.blocks.length === 0 && (
        <div class="waiting">
          <Spinner /> Thinking…
        </div>
      )}
      {/* What failed, why and what to do are in the notice that follows (every provider error gets one). */}
      {item.stopReason === "error" && <div class="stopped">Cut off by the error below</div>}
      {item.stopReason === "aborted" && <div class="stopped">Stopped</div>}
      {item.stopReason === "length" && <div class="stopped">The answer hit the output limit</div>}
      <AnswerActions item={item} />
    </article>
  );
}

function Thinking({ id, block, active }: { id: string; block: AssistantBlock; active: boolean }) {
  if (block.redacted) {
    return <div class="thinking redacted">Thinking redacted by the provider</div>;
  }
  return (
    <Collapsible
      id={id}
      class="thinking"
      summary={
        <>
          {active && <Spinner />}
          {active ? "Thinking…" : "Thought"}
        </>
      }
    >
      <div class="thinking-text">{block.text}</div>
    </Collapsible>
  );
}

/**
 * Rendered HTML of finished blocks, so an item drawn again (scrolled back to, moved from the live
 * part into the list) costs no parse. Bounded: a long chat scrolled end to end keeps the HTML of
 * the last blocks drawn, not of every answer; the rest is parsed again when drawn again.
 */
const finalHtml = new Lru<AssistantBlock, string>(FINAL_HTML_KEPT);

/** Forgets the rendered HTML (a chat switch: the old chat's blocks are not drawn again soon). */
export function forgetRenderedMarkdown(): void {
  finalHtml.clear();
}

function FinalMarkdown({ block }: { block: AssistantBlock }) {
  let html = finalHtml.get(block);
  if (html === undefined) {
    html = renderMarkdown(block.text);
    finalHtml.set(block, html);
  }
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}

function StreamingMarkdown({ text }: { text: string }) {
  const stream = useRef<MarkdownStream | null>(null);
  stream.current ??= new MarkdownStream();
  const [view, setView] = useState(() => stream.current!.update(text));
  const latest = useRef(text);
  const rendered = useRef(text);
  const cancel = useRef<(() => void) | null>(null);
  latest.current = text;

  useEffect(() => {
    if (rendered.current === text || cancel.current) return;
    // At most one parse per animation frame (or per 100 ms while frames are paused, as in a hidden view).
    cancel.current = onNextFrame(() => {
      cancel.current = null;
      rendered.current = latest.current;
      setView(stream.current!.update(latest.current));
    });
  }, [text]);
  useEffect(() => () => cancel.current?.(), []);

  const groups: string[][] = [];
  for (let i = 0; i < view.settled.length; i += SETTLED_GROUP) groups.push(view.settled.slice(i, i + SETTLED_GROUP));
  return (
    <div class="md">
      {groups.map((group, i) => (
        <SettledBlocks key={i} blocks={group} />
      ))}
      {view.open &&
        ("html" in view.open ? (
          <div class="md-block md-open" dangerouslySetInnerHTML={{ __html: view.open.html }} />
        ) : (
          <StreamingPlainText text={view.open.plain} />
        ))}
    </div>
  );
}

/** Settled blocks are drawn in groups, each skipped while its blocks are the same strings. */
const SETTLED_GROUP = 64;

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

class SettledBlocks extends Component<{ blocks: readonly string[] }> {
  override shouldComponentUpdate(next: { blocks: readonly string[] }): boolean {
    return !sameStrings(this.props.blocks, next.blocks);
  }
  override render() {
    return (
      <>
        {this.props.blocks.map((html, i) => (
          <div key={i} class="md-block" dangerouslySetInnerHTML={{ __html: html }} />
        ))}
      </>
    );
  }
}

/** Plain text of a long open block, in pieces that stay the same as it grows (only the last one changes). */
const PLAIN_PIECE = 4096;

function StreamingPlainText({ text }: { text: string }) {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + PLAIN_PIECE);
    if (end < text.length) {
      const newline = text.lastIndexOf("\n", end);
      if (newline > at) end = newline + 1;
    }
    pieces.push(text.slice(at, end));
    at = end;
  }
  return (
    <div class="md-plain">
      {pieces.map((piece, i) => (
        <PlainPiece key={i} text={piece} />
      ))}
    </div>
  );
}

const PlainPiece = memo(function PlainPiece({ text }: { text: string }) {
  return <span>{text}</span>;
});

/**
 * One item whose rendering fails (a malformed item, a bug, markdown that breaks something) shows
 * as plain text with a note; every other item, and the next message, render as usual. Tried
 * again when the item changes (a streamed message goes on).
 */
class ItemBoundary extends Component<{ item: ChatItem; children: ComponentChildren }, { failed: boolean }> {
  override state = { failed: false };

  static override getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidUpdate(previous: { item: ChatItem }): void {
    if (this.state.failed && previous.item !== this.props.item) this.setState({ failed: false });
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    const item = this.props.item as unknown as { id?: unknown };
    return (
      <div class="item item-fallback" data-item={typeof item?.id === "string" ? item.id : undefined}>
        <div class="md-plain">{plainTextOf(this.props.item)}</div>
        <div class="md-note">This message could not be displayed normally, so it is shown as plain text.</div>
      </div>
    );
  }
}

/** Whatever readable text an item holds, read defensively: the item itself may be what broke. */
function plainTextOf(item: unknown): string {
  try {
    if (typeof item !== "object" || item === null) return "";
    const fields = item as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of ["text", "toolName", "path", "errorMessage", "reason"]) {
      const value = fields[key];
      if (typeof value === "string") parts.push(value);
    }
    const blocks = fields["blocks"];
    if (Array.isArray(blocks)) {
      for (const block of blocks) {
        const text = typeof block === "object" && block !== null ? (block as { text?: unknown }).text : undefined;
        if (typeof text === "string") parts.push(text);
      }
    }
    return parts.join("\n\n");
  } catch {
    return "";
  }
}

const FIX_COMMAND_LABELS: Record<FixCommandId, string> = {
  setApiKey: "Set API Key",
  selectModel: "Choose Model",
  selectChatModel: "Choose Provider/Model",
  useLocalModel: "Use a Local Model",
  openSettings: "Open Settings",
  retry: "Retry",
  compact: "Compact Chat",
  newChatFromSummary: "New Chat from Summary",
  mcpSignIn: "Sign In",
};

/** A notice's button: Retry continues the chat; the others run their Pi Chat command. */
function runFix(command: FixCommandId): void {
  if (command === "retry") post({ type: "chat/continue" });
  else post({ type: "workbench/runCommand", command });
}

/** A restore's note keeps its *Redo changes* (the notification's goes away); once used, it says so. */
function RestoreRedo({ item, redo }: { item: NoticeItem; redo: NonNullable<NoticeItem["redo"]> }) {
  const index = /^m(\d+)$/.exec(item.id);
  if (redo.state === "done") return <div class="notice-fix">Changes redone (see below).</div>;
  if (!index) return null;
  return (
    <div class="notice-actions">
      <button type="button" class="button secondary" onClick={() => post({ type: "checkpoint/redo", messageIndex: Number(index[1]) })}>
        Redo changes
      </button>
    </div>
  );
}

function NoticeCard({ item }: { item: NoticeItem }) {
  const Icon = item.level === "error" ? ErrorIcon : InfoIcon;
  const actions = [...new Set([...(item.fixCommand ? [item.fixCommand] : []), ...(item.moreFixCommands ?? [])])];
  return (
    <div class={`item notice notice-${item.level}`} data-item={item.id} role="note" aria-label={item.level === "error" ? "Error" : "Note"}>
      <Icon class={item.level === "error" ? "bad" : "muted"} />
      <div>
        <div class="notice-text">{item.text}</div>
        {item.fix !== undefined && <div class="notice-fix">{item.fix}</div>}
        {actions.length > 0 && (
          <div class="notice-actions">
            {actions.map((command, index) => (
              <button key={command} type="button" class={`button ${index === 0 ? "primary" : "secondary"}`} onClick={() => runFix(command)}>
                {FIX_COMMAND_LABELS[command]}
              </button>
            ))}
          </div>
        )}
        {item.redo !== undefined && <RestoreRedo item={item} redo={item.redo} />}
        {item.detail !== undefined && (
          <details class="notice-detail">
            <summary>What the server said</summary>
            <div class="error-text">{item.detail}</div>
          </details>
        )}
      </div>
    </div>
  );
}
