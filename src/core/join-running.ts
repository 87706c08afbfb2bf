// One run per key at a time: a second caller while a run is under way gets the same promise
// (a second click on "Sign in" joins the page already open instead of opening another).

/** The run under way for `key`, or `start()`'s, kept in `running` until it settles. */
export function joinRunning<K, T>(running: Map<K, Promise<T>>, key: K, start: () => Promise<T>): Promise<T> {
  const underWay = running.get(key);
  if (underWay !== undefined) return underWay;
  const run = start().finally(() => running.delete(key));
  running.set(key, run);
  return run;
}
