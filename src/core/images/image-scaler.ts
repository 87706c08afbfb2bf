// Runs scale-image.ts in a worker thread (out/image-scale.js), one per image: decoding a large
// image takes about a second of CPU, which must not stall the extension host, and the worker's
// memory (the decoded pixels) is given back when it ends. Stop and a time-out end the worker.
import { Worker } from "node:worker_threads";
import { type ScaleRequest, type ScaleResult, scaleRefusal } from "./scale-image";

export type ImageScaler = (request: ScaleRequest, signal?: AbortSignal) => Promise<ScaleResult>;

export const SCALE_TIMEOUT_MS = 60_000;

/** A scaler over the worker script at `workerFile` (the built out/image-scale.js). */
export function createWorkerImageScaler(workerFile: string, timeoutMs = SCALE_TIMEOUT_MS): ImageScaler {
  return (request, signal) =>
    new Promise<ScaleResult>((resolve) => {
      if (signal?.aborted) return resolve({ ok: false, reason: "scaling was stopped" });
      // From the header, before a worker (and its decoder) starts.
      const refused = scaleRefusal(request.bytes);
      if (refused) return resolve({ ok: false, reason: refused });
      let worker: Worker;
      try {
        // The decoder gets room for one large image, no more.
        worker = new Worker(workerFile, { resourceLimits: { maxOldGenerationSizeMb: 256 } });
      } catch (error) {
        return resolve({ ok: false, reason: `the image scaler could not start (${error instanceof Error ? error.message : String(error)})` });
      }
      let done = false;
      const finish = (result: ScaleResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        void worker.terminate();
        resolve(result);
      };
      const onAbort = () => finish({ ok: false, reason: "scaling was stopped" });
      const timer = setTimeout(() => finish({ ok: false, reason: `scaling took longer than ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      worker.once("message", (result: ScaleResult) => finish(result.ok ? { ...result, bytes: new Uint8Array(result.bytes) } : result));
      worker.once("error", (error) => finish({ ok: false, reason: `the image scaler failed (${error.message})` }));
      worker.once("exit", (code) => finish({ ok: false, reason: `the image scaler stopped (exit code ${code})` }));
      // A copy: the caller keeps its bytes.
      worker.postMessage({ ...request, bytes: new Uint8Array(request.bytes) } satisfies ScaleRequest);
    });
}
