// command_output: the newer output of a command run_command started in the background, or its
// end (`stop: true` ends it and everything it started). Reading and stopping need no approval:
// they run nothing new.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { bool, obj, opt, str, type Static } from "@earendil-works/pi-schema";
import { type BackgroundCommands, backgroundRunState, describeState } from "../shell/background";
import type { BackgroundStopCause } from "../../shared/background-state";

export const COMMAND_OUTPUT_TOOL = "command_output";

export const commandOutputParameters = obj({
  id: str({ minLength: 1, maxLength: 200, description: "The id run_command returned for the background command." }),
  stop: opt(bool({ description: "End the command and everything it started, then return its last output." })),
});

export type CommandOutputParams = Static<typeof commandOutputParameters>;

export interface CommandOutputDetails {
  id: string;
  command?: string;
  state: "running" | "exited" | "stopped" | "unknown";
  exitCode?: number | null;
  signal?: string;
  /** Who or what stopped it (the card of a restored chat says so). */
  stoppedBy?: BackgroundStopCause;
  /** From its start to its end, once it ended. */
  durationMs?: number;
  /** Lines that arrived since the last read but were left out (only the newest are kept). */
  skipped: number;
}

export function createCommandOutputTool(background: BackgroundCommands): AgentTool<typeof commandOutputParameters, CommandOutputDetails> {
  return {
    name: COMMAND_OUTPUT_TOOL,
    label: "Command output",
    description:
      "Read the output a background command (run_command with background: true) printed since the last read, and whether it still runs; " +
      "with stop: true, end it (and everything it started) and get its last output.",
    parameters: commandOutputParameters,
    async execute(_toolCallId, params): Promise<AgentToolResult<CommandOutputDetails>> {
      if (params.stop) await background.stop(params.id, "pi");
      const read = background.read(params.id);
      if (!read) {
        const running = background.running.map((p) => p.id);
        return {
          content: [
            {
              type: "text",
              text: `No background command with id ${params.id} runs in this chat. Background commands end when the user stops them, leaves or deletes the chat, or VS Code closes, so a reopened chat has none${running.length ? `; running now: ${running.join(", ")}` : ""}.`,
            },
          ],
          details: { id: params.id, state: "unknown", skipped: 0 },
          isError: true,
        };
      }
      const p = read.process;
      const text = [
        `${p.id} (${p.command}) is ${describeState(p)}.`,
        read.text === "" ? "No new output since the last read." : `New output${read.skipped ? ` (${read.skipped} earlier lines left out)` : ""}:\n${read.text}`,
      ].join("\n");
      return {
        content: [{ type: "text", text }],
        details: { id: p.id, command: p.command, ...endDetails(backgroundRunState(p)), skipped: read.skipped },
      };
    },
  };
}

/** The state as the details keep it: enough for a restored card to say how it ended. */
function endDetails(run: ReturnType<typeof backgroundRunState>): Pick<CommandOutputDetails, "state" | "exitCode" | "signal" | "stoppedBy" | "durationMs"> {
  if (run.state === "exited")
    return {
      state: "exited",
      exitCode: run.exitCode,
      ...(run.signal ? { signal: run.signal } : {}),
      ...(run.durationMs !== undefined ? { durationMs: run.durationMs } : {}),
    };
  if (run.state === "stopped") return { state: "stopped", stoppedBy: run.by, ...(run.durationMs !== undefined ? { durationMs: run.durationMs } : {}) };
  return { state: "running" };
}
