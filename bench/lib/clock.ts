// A virtual clock for HostChannel's injectable `schedule`: time only moves when the bench says so,
// so a 20,000-token answer "streams" at 60 tokens/s in a few milliseconds of real time.

interface Timer {
  at: number;
  order: number;
  callback: () => void;
  cancelled: boolean;
}

export class VirtualClock {
  private time = 0;
  private order = 0;
  private timers: Timer[] = [];

  get now(): number {
    return this.time;
  }

  readonly schedule = (callback: () => void, ms: number): (() => void) => {
    const timer: Timer = { at: this.time + ms, order: this.order++, callback, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };

  /** Runs every timer due up to `time` (in order), then sets the clock to `time`. */
  advanceTo(time: number): void {
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      let next: Timer | undefined;
      for (const t of this.timers) if (t.at <= time && (!next || t.at < next.at || (t.at === next.at && t.order < next.order))) next = t;
      if (!next) break;
      this.time = Math.max(this.time, next.at);
      next.cancelled = true;
      next.callback();
    }
    if (Number.isFinite(time)) this.time = Math.max(this.time, time);
  }
}
