// The host's side of the protocol: numbers every message and paces streamed deltas.
// A growing answer should repaint often enough to look live (≥ 20 times a second) but each post
// costs an envelope and a render, so deltas are paced by time, not size: the first delta after a
// quiet spell goes out at once, later ones are held until `frameIntervalMs` after the previous
// frame and then posted together as one compact DeltaFrame. Any other event first flushes what is
// held, so the order of events never changes.
import { mergeDeltas } from "./event-encoder";
import { PROTOCOL_VERSION, type ChatEvent, type DeltaFrame, type HostMessage, type HostMessageBody, type HostPost } from "./protocol";

/**
 * Minimum time between two delta posts. 33 ms gives ~30 updates a second whatever the token rate
 * (a 60 Hz screen shows every other frame changing), keeps a token's wait in the host under 33 ms,
 * and at 60 tokens/s still carries ~2 tokens per post, so the envelope stays small next to the text.
 */
export const DEFAULT_FRAME_INTERVAL_MS = 33;

export interface HostChannelOptions {
  /** Minimum time between two delta posts (ms). */
  frameIntervalMs?: number;
  /** Injectable timer (tests and benchmarks use a virtual clock). Returns a cancel function. */
  schedule?: (callback: () => void, ms: number) => () => void;
  /** The clock `schedule` runs on (ms). */
  now?: () => number;
}

const defaultSchedule = (callback: () => void, ms: number): (() => void) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

export class HostChannel {
  private seq = 0;
  private held: Extract<ChatEvent, { type: "message/delta" }>[] = [];
  private cancelFlush: (() => void) | undefined;
  /** When the last delta frame was posted; -Infinity before the first. */
  private lastFrameAt = Number.NEGATIVE_INFINITY;
  /** Block index of the open run of frames (a bare-string frame continues it); undefined after any other post. */
  private frameIndex: number | undefined;
  private readonly frameIntervalMs: number;
  private readonly schedule: NonNullable<HostChannelOptions["schedule"]>;
  private readonly now: () => number;

  constructor(
    private readonly post: (message: HostPost) => void,
    options: HostChannelOptions = {},
  ) {
    this.frameIntervalMs = options.frameIntervalMs ?? DEFAULT_FRAME_INTERVAL_MS;
    this.schedule = options.schedule ?? defaultSchedule;
    this.now = options.now ?? Date.now;
  }

  /** The seq of the last message posted (frames count too). */
  get lastSeq(): number {
    return this.seq;
  }

  sendEvent(event: ChatEvent): void {
    if (event.type === "message/delta") {
      this.held.push(event);
      if (this.cancelFlush) return;
      const wait = this.lastFrameAt + this.frameIntervalMs - this.now();
      if (wait <= 0) this.flush();
      else this.cancelFlush = this.schedule(() => this.flush(), wait);
      return;
    }
    this.flush();
    this.postBody({ type: "chat/event", event });
  }

  /**
   * Posts a non-event message. A snapshot already contains every event so far (the host's state
   * was reduced from them), so held deltas are dropped rather than sent after it.
   */
  send(body: HostMessageBody): void {
    if (body.type === "view/snapshot") this.discardHeld();
    else this.flush();
    this.postBody(body);
  }

  flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    if (this.held.length === 0) return;
    const events = mergeDeltas(this.held);
    this.held = [];
    for (const event of events) {
      if (event.type !== "message/delta") continue; // only deltas are ever held
      this.seq += 1;
      const frame: DeltaFrame = this.frameIndex === event.index ? event.text : [event.index, event.text];
      this.frameIndex = event.index;
      this.post(frame);
    }
    this.lastFrameAt = this.now();
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
    this.frameIndex = undefined;
    this.post({ ...body, v: PROTOCOL_VERSION, seq: this.seq } as HostMessage);
  }
}
