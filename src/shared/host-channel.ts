// The host's side of the protocol: numbers every message and batches streamed deltas.
// A model streams far more tokens per second than a view can paint, and each posted message
// costs an envelope; so adjacent deltas are held for up to `flushIntervalMs` and posted as one.
// Any other event first flushes what is held, so the order of events never changes.
import { mergeDeltas } from "./event-encoder";
import { PROTOCOL_VERSION, type ChatEvent, type HostMessage, type HostMessageBody } from "./protocol";

export interface HostChannelOptions {
  flushIntervalMs?: number;
  /** Injectable timer (benchmarks use a virtual clock). Returns a cancel function. */
  schedule?: (callback: () => void, ms: number) => () => void;
}

const defaultSchedule = (callback: () => void, ms: number): (() => void) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

export class HostChannel {
  private seq = 0;
  private held: ChatEvent[] = [];
  private cancelFlush: (() => void) | undefined;
  private readonly flushIntervalMs: number;
  private readonly schedule: NonNullable<HostChannelOptions["schedule"]>;

  constructor(
    private readonly post: (message: HostMessage) => void,
    options: HostChannelOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 50;
    this.schedule = options.schedule ?? defaultSchedule;
  }

  /** The seq of the last message posted. */
  get lastSeq(): number {
    return this.seq;
  }

  sendEvent(event: ChatEvent): void {
    if (event.type === "delta") {
      this.held.push(event);
      this.cancelFlush ??= this.schedule(() => this.flush(), this.flushIntervalMs);
      return;
    }
    this.flush();
    this.postBody({ type: "event", event });
  }

  /**
   * Posts a non-event message. A snapshot already contains every event so far (the host's state
   * was reduced from them), so held deltas are dropped rather than sent after it.
   */
  send(body: HostMessageBody): void {
    if (body.type === "snapshot") this.discardHeld();
    else this.flush();
    this.postBody(body);
  }

  flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    if (this.held.length === 0) return;
    const events = mergeDeltas(this.held);
    this.held = [];
    for (const event of events) this.postBody({ type: "event", event });
  }

  dispose(): void {
    this.discardHeld();
  }

  private discardHeld(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    this.held = [];
  }

  private postBody(body: HostMessageBody): void {
    this.seq += 1;
    this.post({ ...body, v: PROTOCOL_VERSION, seq: this.seq } as HostMessage);
  }
}
