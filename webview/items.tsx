// One component per ChatItem kind. Every item is memoized on its (immutable) object, so a
// streamed delta re-renders only the item it changed; markdown of a finished block is cached
// on the block object, so moving an item from the live part into a settled chunk costs no parse.
import { useEffect, useRef, useState } from "preact/hooks";
import type { AssistantBlock, AssistantItem, AttachmentItem, ChatItem, NoticeItem, UserItem } from "../src/shared/chat-items";
import { ErrorIcon, FileIcon, InfoIcon, Spinner } from "./icons";
import { renderMarkdown, renderMarkdownBlocks } from "./markdown";
import { memo } from "./memo";
import { Collapsible, FileLink, rangeLabel } from "./parts";
import { ApprovalCard, ToolCard } from "./tools";
import { CommandCard } from "./command-card";
import type { FixCommandId } from "../src/shared/app-messages";
import { post } from "./vscode";

export const Item = memo(function Item({ item }: { item: ChatItem }) {
  switch (item.kind) {
    case "user":
      return <UserCard item={item} />;
    case "attachment":
      return <AttachmentChip item={item} />;
    case "assistant":
      return <AssistantCard item={item} />;
    case "tool":
      return item.name === "run_command" ? <CommandCard item={item} /> : <ToolCard item={item} />;
    case "approval":
      return <ApprovalCard item={item} />;
    case "notice":
      return <NoticeCard item={item} />;
  }
});

function UserCard({ item }: { item: UserItem }) {
  return (
    <div class="item user" data-item={item.id}>
      <div class="user-text">{item.text}</div>
    </div>
  );
}

function AttachmentChip({ item }: { item: AttachmentItem }) {
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
  // A message that only called tools: its tool cards say everything.
  if (!item.isStreaming && item.blocks.every((b) => b.type === "text" && b.text.trim() === "") && item.stopReason !== "error" && item.stopReason !== "aborted" && item.stopReason !== "length") {
    return null;
  }
  return (
    <div class={`item assistant${item.isStreaming ? " streaming" : ""}`} data-item={item.id}>
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
      {item.stopReason === "error" && (
        <div class="error-card">
          <ErrorIcon class="bad" />
          <div>
            <div class="error-title">The request failed</div>
            {item.errorMessage !== undefined && <div class="error-text">{item.errorMessage}</div>}
          </div>
        </div>
      )}
      {item.stopReason === "aborted" && <div class="stopped">Stopped</div>}
      {item.stopReason === "length" && <div class="stopped">The answer hit the output limit</div>}
    </div>
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

const finalHtml = new WeakMap<AssistantBlock, string>();

function FinalMarkdown({ block }: { block: AssistantBlock }) {
  let html = finalHtml.get(block);
  if (html === undefined) {
    html = renderMarkdown(block.text);
    finalHtml.set(block, html);
  }
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** At most one parse per animation frame (or 100 ms when frames are paused, as in a hidden view). */
function requestFrame(run: () => void): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    run();
  };
  const frame = requestAnimationFrame(once);
  const timer = setTimeout(once, 100);
  return () => {
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}

function StreamingMarkdown({ text }: { text: string }) {
  const cache = useRef(new Map<string, string>()).current;
  const [blocks, setBlocks] = useState(() => renderMarkdownBlocks(text, cache));
  const latest = useRef(text);
  const rendered = useRef(text);
  const cancel = useRef<(() => void) | null>(null);
  latest.current = text;

  useEffect(() => {
    if (rendered.current === text || cancel.current) return;
    cancel.current = requestFrame(() => {
      cancel.current = null;
      rendered.current = latest.current;
      setBlocks(renderMarkdownBlocks(latest.current, cache));
    });
  }, [text]);
  useEffect(() => () => cancel.current?.(), []);

  return (
    <div class="md">
      {blocks.map((html, i) => (
        <div key={i} class="md-block" dangerouslySetInnerHTML={{ __html: html }} />
      ))}
    </div>
  );
}

const FIX_COMMAND_LABELS: Record<FixCommandId, string> = { setApiKey: "Set API Key", selectModel: "Select Model" };

function NoticeCard({ item }: { item: NoticeItem }) {
  const Icon = item.level === "error" ? ErrorIcon : InfoIcon;
  return (
    <div class={`item notice notice-${item.level}`} data-item={item.id}>
      <Icon class={item.level === "error" ? "bad" : "muted"} />
      <div>
        <div class="notice-text">{item.text}</div>
        {item.fix !== undefined && <div class="notice-fix">{item.fix}</div>}
        {item.fixCommand !== undefined && (
          <div class="notice-actions">
            <button type="button" class="button secondary" onClick={() => post({ type: "command", command: item.fixCommand! })}>
              {FIX_COMMAND_LABELS[item.fixCommand]}
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
