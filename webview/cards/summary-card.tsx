// A compaction's card: running (with Stop), then the summary the model now gets instead of the
// earlier messages, what triggered it, the files read and modified, and what the summary cost.
import type { AssistantBlock, SummaryItem } from "../../src/shared/chat-items";
import { groupDigits } from "../format";
import { Spinner } from "../icons";
import { FinalMarkdown } from "../markdown/rendered-cache";
import { post } from "../vscode-api";
import { Collapsible } from "./collapsible";
import { FileLink } from "./file-link";

const TRIGGER_LABEL: Record<SummaryItem["trigger"], string> = {
  threshold: "the context was nearly full",
  overflow: "the model said the context was too long",
  manual: "compacted by hand",
};

export function SummaryCard({ item }: { item: SummaryItem }) {
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
