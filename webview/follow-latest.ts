// "Show the newest message": the composer asks for it when the user sends (their prompt, and any
// card Pi then waits on, must come into sight even if they had scrolled up); the message list
// (message-list/use-scroll-anchor.ts) does it. A tiny event so the composer does not import the list.
const listeners = new Set<() => void>();

export function followLatest(): void {
  for (const listener of listeners) listener();
}

/** Returns the unsubscriber. */
export function onFollowLatest(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
