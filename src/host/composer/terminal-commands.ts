// `@terminal`'s memory: each terminal's last command and its output, read as it runs (shell
// integration gives no way to read it later). Started with the composer lists (composer-lists.ts), so a command run before
// the first `@` is known; the rest of the mentions code loads on demand (out/composer.js).
import * as vscode from "vscode";

/** What is kept of a running command's output while it is read (its tail). */
const TERMINAL_BUFFER_CHARS = 256 * 1024;

export interface TerminalRecord {
  readonly command: string;
  output: string;
  /** The output's start was dropped to stay within the buffer. */
  cut: boolean;
  exitCode: number | undefined;
  ended: boolean;
  /** Settles when the whole output was read (the stream ends a moment after the end event). */
  readonly readDone: Promise<void>;
}

export class TerminalCommands implements vscode.Disposable {
  private readonly last = new Map<vscode.Terminal, TerminalRecord>();
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly log: (line: string) => void) {
    this.disposables = [
      vscode.window.onDidStartTerminalShellExecution((event) => void this.record(event.terminal, event.execution)),
      vscode.window.onDidCloseTerminal((terminal) => this.last.delete(terminal)),
    ];
  }

  /** The last command seen in `terminal`, if any ran since Pi Chat started. */
  lastOf(terminal: vscode.Terminal): TerminalRecord | undefined {
    return this.last.get(terminal);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private async record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    let readDone = () => {};
    const record: TerminalRecord = {
      command: execution.commandLine.value,
      output: "",
      cut: false,
      exitCode: undefined,
      ended: false,
      readDone: new Promise<void>((done) => {
        readDone = done;
      }),
    };
    this.last.set(terminal, record);
    const end = vscode.window.onDidEndTerminalShellExecution((event) => {
      if (event.execution !== execution) return;
      record.exitCode = event.exitCode;
      record.ended = true;
      end.dispose();
    });
    try {
      for await (const data of execution.read()) {
        record.output += data;
        if (record.output.length > TERMINAL_BUFFER_CHARS) {
          record.output = record.output.slice(-TERMINAL_BUFFER_CHARS / 2);
          record.cut = true;
        }
      }
    } catch (error) {
      this.log(`@terminal: reading a command's output failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      readDone();
    }
  }
}
