// How sizes, durations and counts read in every message, card and log line, on both sides of the
// protocol (the host's tool results and the webview's cards say "12 KB" and "1.5 s" alike).

const KIB = 1024;
const MIB = 1024 * 1024;

/** Bytes as people read them: binary units (1 KB = 1,024 bytes, as VS Code shows sizes), one decimal at most. */
export function formatBytes(bytes: number): string {
  if (bytes < KIB) return `${bytes} B`;
  if (bytes < MIB) return `${Math.round((bytes / KIB) * 10) / 10} KB`;
  return `${Math.round((bytes / MIB) * 10) / 10} MB`;
}

/** A duration: "850 ms", "1.5 s", "42 s", "3 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/** "1 file", "2 files", "1,024 entries" (pass the plural when it is not the word plus "s"). */
export function plural(count: number, word: string, words = `${word}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? word : words}`;
}
