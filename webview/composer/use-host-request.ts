// One round trip to the host from the composer (a drop's paths, a pasted path, a template to
// expand): `ask` numbers the request and keeps what it was about; when the host's answer with that
// number arrives, `onAnswer` gets both, once. A newer request replaces an older one, whose answer
// is then ignored. The numbers are unique across the webview, so answers never mix between kinds.
import { useEffect, useRef } from "preact/hooks";

let lastRequestId = 0;

export interface HostRequest<Pending> {
  /** Numbers a request (the caller posts it with this number) and remembers `pending` for its answer. */
  ask(pending: Pending): number;
  /** A request is waiting for its answer. */
  waiting(): boolean;
}

export function useHostRequest<Answer extends { readonly requestId: number }, Pending>(
  answer: Answer | undefined,
  onAnswer: (answer: Answer, pending: Pending) => void,
): HostRequest<Pending> {
  const pending = useRef<{ requestId: number; about: Pending } | undefined>(undefined);
  useEffect(() => {
    const waiting = pending.current;
    if (!answer || !waiting || answer.requestId !== waiting.requestId) return;
    pending.current = undefined;
    onAnswer(answer, waiting.about);
  }, [answer]);
  return {
    ask(about) {
      pending.current = { requestId: ++lastRequestId, about };
      return pending.current.requestId;
    },
    waiting: () => pending.current !== undefined,
  };
}
