// What went with a user's message: a file (a link, with its line range) or a mention that
// carried text (problems, changes, terminal), with what was cut.
import type { AttachmentItem } from "../../src/shared/chat-items";
import { FileIcon } from "../icons";
import { FileLink, rangeLabel } from "./file-link";

export function AttachmentCard({ item }: { item: AttachmentItem }) {
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
