// Renders at most once per animation frame. A lone host message renders at once (no added
// latency); messages that arrive while that frame is still pending are folded into one render
// when it has been painted. A burst (a fast model, a reconnect) then costs one render a frame,
// not one per message.

/** A frame that is never painted (the view is hidden and rAF paused) still ends after this long. */
const HIDDEN_FRAME_MS = 100;

/**
 * Runs `run` at the next animation frame, or after HIDDEN_FRAME_MS when frames are paused (a
 * hidden view), whichever comes first. Returns a cancel.
 */
export function onNextFrame(run: () => void): () => void {
  let done = false;
  const cancel = () => {
    done = true;
    cancelAnimationFrame(raf);
    clearTimeout(timer);
  };
  const once = () => {
    if (done) return;
    cancel();
    run();
  };
  const raf = requestAnimationFrame(once);
  const timer = setTimeout(once, HIDDEN_FRAME_MS);
  return cancel;
}

export function paceByFrame(apply: () => void): () => void {
  let inFrame = false;
  let pending = false;
  const startFrame = () => {
    inFrame = true;
    onNextFrame(() => {
      if (pending) {
        pending = false;
        apply();
        startFrame();
      } else {
        inFrame = false;
      }
    });
  };
  return () => {
    if (inFrame) {
      pending = true;
      return;
    }
    apply();
    startFrame();
  };
}

/** The protocol seq of the view last committed to the DOM, and how many commits there were (tests and benchmarks read them). */
export const renderedSeq = { value: -1, commits: 0 };
