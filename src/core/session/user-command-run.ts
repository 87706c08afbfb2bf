// The user's `!cmd` / `!!cmd` in a chat: refused with the reason shown in Restricted Mode, with no
// folder, or in a multi-root workspace without a chosen folder; else run in its folder without
// asking (the user typed it), its progress shown, and saved as a bashExecution message.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import { resolveCommandFolder, type CommandFolders } from "../shell/command-folders";
import { runUserCommand, type UserCommandText } from "../shell/user-command";
import type { ChatPath } from "./chat-path";
import { errorNotice } from "./run-errors";
import { STILL_RUNNING, type RunSlot } from "./run-loop";
import type { ChatSessionOptions, Redactor } from "./types";

export interface UserCommandHost {
  readonly slot: RunSlot;
  readonly options: Pick<ChatSessionOptions, "commands" | "fs">;
  readonly commandFolders: CommandFolders | undefined;
  readonly keys: Redactor;
  readonly path: Pick<ChatPath, "add">;
  /** The Stop button's way to end the command while it runs. */
  setStop(controller: AbortController | undefined): void;
  emit(event: ChatEvent): void;
  append(message: AgentMessage): Promise<void>;
  persistOnce(message: AgentMessage): Promise<void>;
  ensureSystemMessage(): Promise<void>;
}

export function runUserCommandIn(host: UserCommandHost, text: UserCommandText, cwd?: string): Promise<void> {
  if (host.slot.running) return Promise.reject(new Error(STILL_RUNNING));
  const commands = host.options.commands;
  const folders = host.commandFolders;
  if (!commands?.enabled() || !folders) {
    const why =
      "Commands cannot run here: this folder is open in Restricted Mode (not trusted), or no folder is open. Trust the folder (Manage Workspace Trust) to run commands.";
    return host.append(errorNotice(why, undefined));
  }
  if (folders.multiRoot && cwd === undefined) {
    // The host gives the folder (the active editor's, or the user's pick); without one nothing is guessed.
    const why = `Not run: this workspace has several folders (${folders.names.join(", ")}) and no folder was chosen. Open a file of the folder to run it in, or pick one when asked.`;
    return host.append(errorNotice(why, undefined));
  }
  const controller = new AbortController();
  return host.slot.hold(async () => {
    host.setStop(controller);
    host.emit({ type: "chat/runState", running: true });
    try {
      let folder: { relative: string; absolute: string };
      try {
        folder = await resolveCommandFolder(host.options.fs, folders, cwd);
      } catch (error) {
        await host.append(errorNotice(`Not run: ${error instanceof Error ? error.message : String(error)}`, undefined));
        return;
      }
      const where = folders.multiRoot ? { cwd: folder.relative } : {};
      const started: AgentMessage = {
        role: "bashExecution",
        command: text.command,
        output: "",
        exitCode: null,
        cancelled: false,
        truncated: false,
        excludeFromContext: text.excludeFromContext,
        ...where,
        timestamp: Date.now(),
      };
      await host.ensureSystemMessage();
      host.emit({ type: "message/start", message: started });
      const ran = await runUserCommand(text, {
        runner: commands.runner(),
        cwd: folder.absolute,
        timeoutMs: commands.defaultTimeoutSeconds() * 1000,
        signal: controller.signal,
        redact: host.keys,
        ...(commands.logDir ? { logFile: `${commands.logDir}/user-${Date.now().toString(36)}.log` } : {}),
        onProgress: (p) => host.emit({ type: "command/progress", tail: p.tail, elapsedMs: p.elapsedMs }),
      });
      const message: AgentMessage = { ...ran, ...where };
      host.path.add(message);
      // Saved on the current branch like any message (the tree's next node).
      await host.persistOnce(message);
      host.emit({ type: "message/end", message });
    } finally {
      host.setStop(undefined);
      host.slot.free();
      host.emit({ type: "chat/runState", running: false });
    }
  });
}
