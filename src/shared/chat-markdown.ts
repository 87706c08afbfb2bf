// A chat as Markdown, for "Export Chat to Markdown": what the view shows, item by item (prompts,
// answers, tool summaries with their diffs, commands, notices), never what only the model saw.
// Pure: the host opens the text in an untitled editor.
import type { ChatItem, ToolItem } from "./chat-items";
import { unifiedDiffText } from "./structured-diff";

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fence(text: string, info = ""): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${info}\n${text.replace(/\n$/, "")}\n${ticks}`;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

/** One line saying what a tool call did, as its card's title does. */
function toolSummary(item: ToolItem): string {
  const args = (typeof item.args === "object" && item.args !== null ? item.args : {}) as Record<string, unknown>;
  const target =
    typeof args["path"] === "string"
      ? ` \`${args["path"]}\``
      : typeof args["command"] === "string"
        ? ` \`${args["command"]}\``
        : typeof args["query"] === "string"
          ? ` “${args["query"]}”`
          : "";
  const decided = item.approval?.state === "denied" ? " — denied" + (item.approval.reason ? `: ${item.approval.reason}` : "") : "";
  const status = item.status === "error" ? " — failed" : item.status === "success" ? "" : ` — ${item.status}`;
  return `**Tool** \`${item.name}\`${target}${status}${decided}`;
}

function toolDiff(item: ToolItem): string | undefined {
  // A secret file's change is only a count: never written out.
  const diff = item.diff ?? item.approval?.diff;
  return diff?.kind === "hunks" ? fence(unifiedDiffText(diff.hunks), "diff") : undefined;
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one case per item kind, a few lines of Markdown each
export function chatToMarkdown(title: string, items: readonly ChatItem[]): string {
  const out: string[] = [`# ${title.replace(/\n/g, " ")}`];
  for (const item of items) {
    switch (item.kind) {
      case "user":
        out.push(`## You\n\n${item.text}${item.images?.length ? `\n\n*(${item.images.length} image${item.images.length === 1 ? "" : "s"} attached)*` : ""}`);
        break;
      case "attachment":
        out.push(`*Attached:* \`${item.path}\`${item.range ? ` lines ${item.range.startLine}–${item.range.endLine}` : ""}`);
        break;
      case "assistant": {
        const text = item.blocks
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join("\n\n")
          .trim();
        const end =
          item.stopReason === "error"
            ? `\n\n*The request failed${item.errorMessage ? `: ${item.errorMessage}` : ""}.*`
            : item.stopReason === "aborted"
              ? "\n\n*Stopped.*"
              : "";
        if (text !== "" || end !== "") out.push(`## Pi\n\n${text}${end}`);
        break;
      }
      case "tool": {
        const diff = toolDiff(item);
        out.push(diff ? `${toolSummary(item)}\n\n${diff}` : toolSummary(item));
        break;
      }
      case "userCommand":
        out.push(
          `**Command** \`${item.command}\`${item.exitCode !== null ? ` (exit ${item.exitCode})` : item.cancelled ? " (stopped)" : ""}\n\n${fence(item.output, "text")}`,
        );
        break;
      case "notice":
        out.push(quote(`${item.level === "error" ? "**Error:** " : ""}${item.text}${item.fix ? `\n${item.fix}` : ""}`));
        break;
      case "summary":
        if (item.state === "done") out.push(`*Earlier conversation compacted into a summary:*\n\n${quote(item.summary ?? "")}`);
        break;
    }
  }
  return `${out.join("\n\n")}\n`;
}
