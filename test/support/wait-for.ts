// The one way the Node-side suites (unit, host) wait for a condition: poll a probe until it gives a
// value. The deadline only turns a hang into a failure that names what was awaited; no test
// asserts how long the wait took (a busy machine is slower, never wrong).

/** What a probe gives while the condition does not hold yet: any falsy value. */
type NotYet = undefined | null | false | 0 | "";

export interface WaitOptions {
  /** How long before the wait fails with "timed out waiting for …". */
  timeoutMs?: number;
  /** Pause between probes. */
  intervalMs?: number;
  /** Called before each probe: throws to fail at once (a local server's failure, say) rather than at the deadline. */
  failFast?: () => void;
}

/** Polls `probe` until it gives a truthy value, and returns that value. */
export async function waitFor<T>(what: string, probe: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions | number = {}): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 25, failFast } = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    failFast?.();
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
