// The text a command or MCP card shows of its result: capped for the view (the model's cap is the
// host's), with the whole output one click away when the host kept it in a log file.
import { post } from "../vscode-api";

/** Characters of a result drawn in a card (an MCP tool keeps what the model gets within 20 KB: more was not made by it); the rest is in the log file. */
export const MAX_OUTPUT_CHARS = 60_000;

/** Cut to MAX_OUTPUT_CHARS, with an ellipsis line when cut. */
export function capOutput(text: string): string {
  return text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n\u2026` : text;
}

export function ToolOutput({ text, toolCallId, hasLog }: { text: string; toolCallId: string; hasLog: boolean }) {
  return (
    <>
      <pre>{capOutput(text)}</pre>
      {hasLog && (
        <button type="button" class="text-button" onClick={() => post({ type: "command/openOutput", toolCallId })}>
          Open the whole output
        </button>
      )}
    </>
  );
}
