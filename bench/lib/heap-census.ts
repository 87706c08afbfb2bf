// What a page's V8 heap holds, by kind, from a CDP heap snapshot: compiled code (bytecode,
// machine code, feedback, the compiled code of regular expressions) apart from data (objects,
// arrays, strings). P19 says this beside "New Chat ÷ a fresh view", because the two pages differ
// in the code each has run, not only in what they hold of a chat: a fresh view never parsed
// markdown nor highlighted code, so V8 never compiled that code or those regexes.
type CDPSession = import("playwright-core").CDPSession;

export interface HeapCensus {
  /** Machine code and bytecode of functions, their feedback and metadata (MB, self sizes). */
  codeMB: number;
  /** Regular expressions' compiled data: their bytecode and machine code (MB). */
  regexpCodeMB: number;
  /** Everything else on the V8 heap: objects, arrays, strings, closures, maps (MB). */
  dataMB: number;
  /** DOM nodes the snapshot says are detached from the document. */
  detachedNodes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Takes a heap snapshot (a full GC first, as V8 does for every snapshot) and counts it. */
export async function heapCensus(cdp: CDPSession): Promise<HeapCensus> {
  const chunks: string[] = [];
  const onChunk = (e: { chunk: string }) => chunks.push(e.chunk);
  cdp.on("HeapProfiler.addHeapSnapshotChunk", onChunk);
  await cdp.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  cdp.off("HeapProfiler.addHeapSnapshotChunk", onChunk);
  return countSnapshot(JSON.parse(chunks.join("")) as Snapshot);
}

export function countSnapshot(s: Snapshot): HeapCensus {
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const edgeCountAt = fields.indexOf("edge_count");
  const detachedAt = fields.indexOf("detachedness");
  const edgeWidth = s.snapshot.meta.edge_fields.length;
  const toAt = s.snapshot.meta.edge_fields.indexOf("to_node");
  const types = s.snapshot.meta.node_types[0];
  const count = s.nodes.length / width;
  // A regex's compiled forms hang off its data object (IrRegExpData): its Code objects, their
  // instruction streams, its bytecode (TrustedByteArray).
  const regexpOwned = new Uint8Array(count);
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += s.nodes[i * width + edgeCountAt]! * edgeWidth;
    firstEdge[i + 1] = e;
  }
  const nameOf = (i: number) => s.strings[s.nodes[i * width + nameAt]!]!;
  const mark = (i: number, depth: number): void => {
    regexpOwned[i] = 1;
    if (depth === 0) return;
    for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += edgeWidth) {
      const to = s.edges[e + toAt]! / width;
      const name = nameOf(to);
      if (/^system \/ (Code|InstructionStream|TrustedByteArray|CodeWrapper)$/.test(name)) mark(to, depth - 1);
    }
  };
  for (let i = 0; i < count; i++) if (/RegExpData$/.test(nameOf(i))) mark(i, 3);
  let code = 0;
  let regexp = 0;
  let data = 0;
  let detached = 0;
  for (let i = 0; i < count; i++) {
    const type = types[s.nodes[i * width + typeAt]!];
    const size = s.nodes[i * width + sizeAt]!;
    if (detachedAt >= 0 && s.nodes[i * width + detachedAt] === 2) detached++;
    const name = nameOf(i);
    if (regexpOwned[i]) regexp += size;
    else if (type === "code") code += size;
    // Blink's objects (the DOM, styles) and a script's source text are not on the V8 heap.
    else if (type === "native" && (!name.startsWith("system / ") || name === "system / ExternalStringData")) continue;
    else if (type !== "synthetic") data += size;
  }
  return { codeMB: code / 1e6, regexpCodeMB: regexp / 1e6, dataMB: data / 1e6, detachedNodes: detached };
}
