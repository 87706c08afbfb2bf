// One chat item on screen: the card for its kind (one file per card in this folder), marked with
// what the model receives of it (sent as shown, in another form, summarized, never), inside an error boundary so an item that fails to render
// shows as plain text and the rest of the chat renders. Every item is memoized on its (immutable)
// object, so a streamed delta re-renders only the item it changed.
import { Component, type ComponentChildren } from "preact";
import type { ChatItem } from "../../src/shared/chat-items";
import { memo } from "../memo";
import { AssistantCard } from "./assistant-card";
import { AttachmentCard } from "./attachment-card";
import { CommandCard, UserCommandCard } from "./command-card";
import { McpCard } from "./mcp-card";
import { NoticeCard } from "./notice-card";
import { SummaryCard } from "./summary-card";
import { ToolCard } from "./tool-card";
import { UserCard } from "./user-card";
import { toolCardKind } from "../../src/shared/tool-names";
import { TaskListCard } from "./task-list-card";
import { PlanCard } from "./plan-card";
import { ModelMarkBadge } from "./model-mark";
import { itemModelMark, modelMarkLabel } from "../../src/shared/model-visibility";

export const Item = memo(function Item({ item }: { item: ChatItem }) {
  const mark = itemModelMark(item);
  const label = modelMarkLabel(mark);
  return (
    <ItemBoundary item={item}>
      {/* Named by what the model receives of it; a summarized item is still shown as it was, set apart. */}
      {/* biome-ignore lint/a11y/useSemanticElements: one chat item and its mark, named as one; not a form, so no fieldset. */}
      <div
        class={item.summarized ? "model-scope summarized" : "model-scope"}
        role="group"
        aria-label={label}
        data-model={mark.visibility}
        data-summarized={item.summarized ? "true" : undefined}
      >
        <ItemCard item={item} />
        <ModelMarkBadge mark={mark} label={label} />
      </div>
    </ItemBoundary>
  );
});

function ItemCard({ item }: { item: ChatItem }) {
  switch (item.kind) {
    case "user":
      return <UserCard item={item} />;
    case "attachment":
      return <AttachmentCard item={item} />;
    case "assistant":
      return <AssistantCard item={item} />;
    case "tool":
      if (toolCardKind(item.name) === "tasks") return <TaskListCard item={item} />;
      if (toolCardKind(item.name) === "plan") return <PlanCard item={item} />;
      return item.name === "run_command" ? <CommandCard item={item} /> : item.name.startsWith("mcp__") ? <McpCard item={item} /> : <ToolCard item={item} />;
    case "notice":
      return <NoticeCard item={item} />;
    case "userCommand":
      return <UserCommandCard item={item} />;
    case "summary":
      return <SummaryCard item={item} />;
    default: {
      // A new ChatItem kind fails the typecheck here until it has its card (and draws nothing, as before).
      const unhandled: never = item;
      void unhandled;
      return null;
    }
  }
}

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
