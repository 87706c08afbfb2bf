// The pi coding agent CLI 1.6.0 asks for Node >= 22.19; this machine (and CI) run Node 20. It
// uses four things Node 20 lacks: `globSync` from node:fs, zlib's zstd,
// worker_threads' markAsUncloneable and Promise.withResolvers. This module-resolution hook gives
// pi's modules a node:fs with a globSync that throws if it is ever called (the pi session tests
// never reach pi's package manager, its only user): a loud failure, never a silent wrong answer.
// Loaded with `node --import <this file>` by test/support/pi-cli.ts only.
import { createRequire, register } from "node:module";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  // undici 8 (pi's HTTP client) binds zlib's zstd decompressor when it loads (Node >= 22.15).
  // The test server never sends zstd: a stub that throws if used.
  const zlib = createRequire(import.meta.url)("node:zlib");
  zlib.createZstdDecompress ??= () => {
    throw new Error(`zstd is not available on Node ${process.versions.node} (pi test shim)`);
  };
  zlib.createZstdCompress ??= zlib.createZstdDecompress;
  zlib.constants.ZSTD_d_windowLogMax ??= 100;
  // undici marks its Cache objects uncloneable (Node >= 22.10); doing nothing only leaves them cloneable.
  // The summary request of a compaction uses Promise.withResolvers (Node >= 22): the standard polyfill.
  Promise.withResolvers ??= function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
  const workers = createRequire(import.meta.url)("node:worker_threads");
  workers.markAsUncloneable ??= () => undefined;
  const shim = `export * from "node:fs"; import fs from "node:fs"; export default fs;
export function globSync() { throw new Error("globSync is not available on Node " + process.versions.node + " (pi test shim)"); }`;
  const hooks = `
const SHIM = "data:text/javascript," + encodeURIComponent(${JSON.stringify(shim)});
export async function resolve(specifier, context, next) {
  if ((specifier === "node:fs" || specifier === "fs") && context.parentURL && !context.parentURL.startsWith("data:") && context.parentURL.includes("pi-coding-agent")) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
