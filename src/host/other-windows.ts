// Two VS Code windows on the same folder share the chats. This keeps the chat on screen in step
// with the other window: while that window runs it (holds its lock) the chat is read-only here
// ("open in another window"), and when the other window is done — or wrote it while this one
// was not looking — the chat is read from disk again and shown afresh. Polls the lock file and
// the chat file's size (two stats) every POLL_MS; no watcher to set up or leak.
import type { ChatService } from "../core/chat-service";
import type { ChatSession } from "../core/session";
import { ChatLocks } from "../core/transcript";

/** How often the chat on screen is checked against the other windows. */
export const POLL_MS = 1_500;

export interface OtherWindowsHost {
  readonly service: ChatService;
  /** The chat on screen. */
  current(): ChatSession;
  /** The chat on screen was read again from disk: show this session instead. */
  reloaded(session: ChatSession): void;
  /** `writtenElsewhere` changed: send the status again. */
  statusChanged(): void;
  log(line: string): void;
}

export class OtherWindows {
  readonly locks: ChatLocks;
  private host: OtherWindowsHost | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private checking = false;
  private elsewhere = false;

  constructor(storageDir: string) {
    this.locks = new ChatLocks(storageDir);
  }

  /** True while another window writes the chat on screen. */
  get writtenElsewhere(): boolean {
    return this.elsewhere;
  }

  start(host: OtherWindowsHost): void {
    this.host = host;
    this.timer = setInterval(() => void this.check(), POLL_MS);
    this.timer.unref?.();
  }

  /** One look at the chat on screen; also called right after a switch. */
  async check(): Promise<void> {
    const host = this.host;
    if (!host || this.checking) return;
    this.checking = true;
    try {
      const session = host.current();
      if (session.running) return; // this window is the writer
      const holder = await host.service.writerElsewhere(session.id);
      const elsewhere = holder !== undefined;
      if (!elsewhere && !(await host.service.isCurrent(session.id)) && session === host.current()) {
        const reopened = await host.service.reload(session.id);
        if (reopened.ok) {
          host.log(`chat ${session.id} was written in another window: reloaded`);
          this.elsewhere = false;
          host.reloaded(reopened.session);
          return;
        }
      }
      if (elsewhere !== this.elsewhere) {
        this.elsewhere = elsewhere;
        if (elsewhere) host.log(`chat ${session.id} is being written in another window (pid ${holder.pid}): read-only here`);
        host.statusChanged();
      }
    } catch (error) {
      host.log(`checking the other windows failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.checking = false;
    }
  }

  dispose(): void {
    clearInterval(this.timer);
    void this.locks.releaseAll();
  }
}
