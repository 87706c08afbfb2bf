// The host's side of the protocol: numbers every message and batches streamed deltas.
// Each posted message costs an envelope, and a view gains nothing from more than a few
// repaints a second of a growing answer; so deltas are held until `minBatchChars` of text
// have arrived or `maxDelayMs` has passed, then posted as compact DeltaFrames. Any other
// event first flushes what is held, so the order of events never changes.
import { mergeDeltas } from "./event-encoder";
import { PROTOCOL_VERSION, type ChatEvent, type HostMessage, type HostMessageBody, type HostPost } from "./protocol";

export interface HostChannelOptions {
  /** Post held deltas once this much text is held. Default 48 characters. */
  minBatchChars?: number;
  /** ...or once the first held delta is this old. Default 200 ms. */
  maxDelayMs?: number;
  /** Injectable timer (benchmarks use a virtual clock). Returns a cancel function. */
  schedule?: (callback: () => void, ms: number) => () => void;
}

const defaultSchedule = (callback: () => void, ms: number): (() => void) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

export class HostChannel {
  private seq = 0;
  private held: Extract<ChatEvent, { type: "delta" }>[] = [];
  private heldChars = 0;
  private cancelFlush: (() => void) | undefined;
  private readonly minBatchChars: number;
  private readonly maxDelayMs: number;
  private readonly schedule: NonNullable<HostChannelOptions["schedule"]>;

  constructor(
    private readonly post: (message: HostPost) => void,
    options: HostChannelOptions = {},
  ) {
    this.minBatchChars = options.minBatchChars ?? 48;
    this.maxDelayMs = options.maxDelayMs ?? 200;
    this.schedule = options.schedule ?? defaultSchedule;
  }

  /** The seq of the last message posted. */
  get lastSeq(): number {
    return this.seq;
  }

  sendEvent(event: ChatEvent): void {
    if (event.type === "delta") {
      this.held.push(event);
      this.heldChars += event.text.length;
      if (this.heldChars >= this.minBatchChars) this.flush();
      else this.cancelFlush ??= this.schedule(() => this.flush(), this.maxDelayMs);
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
    this.heldChars = 0;
    for (const event of events) {
      if (event.type !== "delta") continue; // only deltas are ever held
      this.seq += 1;
      this.post([this.seq, event.index, event.text]);
    }
  }

  dispose(): void {
    this.discardHeld();
  }

  private discardHeld(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    this.held = [];
    this.heldChars = 0;
  }

  private postBody(body: HostMessageBody): void {
    this.seq += 1;
    this.post({ ...body, v: PROTOCOL_VERSION, seq: this.seq } as HostMessage);
  }
}
