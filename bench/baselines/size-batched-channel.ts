// Baseline for P1: the policy HostChannel had before it paced by time — hold deltas until
// 48 characters or 200 ms, then post them. It speaks today's wire format (what it holds goes out
// through a real HostChannel that posts every delta at once), so the same webview bundle reads
// it: only the timing differs, which is what the side-by-side figure compares.
import { mergeDeltas } from "../../src/shared/event-encoder";
import { HostChannel } from "../../src/shared/host-channel";
import type { ChatEvent, HostMessageBody, HostPost } from "../../src/shared/protocol";

export class SizeBatchedChannel {
  private readonly inner: HostChannel;
  private held: ChatEvent[] = [];
  private heldChars = 0;
  private cancel: (() => void) | undefined;

  constructor(
    post: (message: HostPost) => void,
    private readonly schedule: (callback: () => void, ms: number) => () => void,
    now: () => number,
    private readonly minBatchChars = 48,
    private readonly maxDelayMs = 200,
  ) {
    this.inner = new HostChannel(post, { frameIntervalMs: 0, schedule, now });
  }

  get lastSeq(): number {
    return this.inner.lastSeq;
  }

  sendEvent(event: ChatEvent): void {
    if (event.type !== "message/delta") {
      this.flush();
      this.inner.sendEvent(event);
      return;
    }
    this.held.push(event);
    this.heldChars += event.text.length;
    if (this.heldChars >= this.minBatchChars) this.flush();
    else this.cancel ??= this.schedule(() => this.flush(), this.maxDelayMs);
  }

  send(body: HostMessageBody): void {
    this.flush();
    this.inner.send(body);
  }

  flush(): void {
    this.cancel?.();
    this.cancel = undefined;
    for (const event of mergeDeltas(this.held)) this.inner.sendEvent(event);
    this.held = [];
    this.heldChars = 0;
  }
}
