// The view's two live regions, visually hidden: one polite (meaning: answering, approvals,
// outcomes, the finished answer, "Copied") and one assertive (failures). `announce` is how
// anything in the webview speaks. Each announcement is a new node (screen readers read
// additions, in order, and the same text twice is heard twice); only the last few are kept.
import { useEffect, useState } from "preact/hooks";

type Listener = (text: string, assertive: boolean) => void;
const listeners = new Set<Listener>();

export function announce(text: string, assertive = false): void {
  for (const listener of listeners) listener(text, assertive);
}

const KEPT = 4;
let nextId = 0;

interface Said {
  id: number;
  text: string;
}

export function LiveRegions() {
  const [polite, setPolite] = useState<Said[]>([]);
  const [assertive, setAssertive] = useState<Said[]>([]);
  useEffect(() => {
    const listener: Listener = (text, isAssertive) => {
      const said = { id: nextId++, text };
      (isAssertive ? setAssertive : setPolite)((list) => [...list.slice(1 - KEPT), said]);
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return (
    <>
      <div class="sr-only" role="status" aria-live="polite" aria-atomic="false" aria-relevant="additions" data-live="polite">
        {polite.map((s) => (
          <div key={s.id}>{s.text}</div>
        ))}
      </div>
      <div class="sr-only" aria-live="assertive" aria-atomic="false" aria-relevant="additions" data-live="assertive">
        {assertive.map((s) => (
          <div key={s.id}>{s.text}</div>
        ))}
      </div>
    </>
  );
}
