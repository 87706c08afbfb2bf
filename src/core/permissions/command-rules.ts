// Command allow rules for the host: the matcher itself is pure and lives in src/shared (the card
// previews a rule with the same code that decides); this adds which shell this host runs.
export * from "../../shared/command-rules";
import type { CommandShell } from "../../shared/command-rules";

/** Where this extension host runs commands (node-runner.ts and the terminal use ComSpec on Windows). */
export function hostCommandShell(platform: string = process.platform): CommandShell {
  return platform === "win32" ? "cmd" : "posix";
}
