// Summaries of repeated measurements: median and spread (min–max and the interquartile range).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface Summary {
  median: number;
  min: number;
  max: number;
  q1: number;
  q3: number;
  n: number;
  samples: number[];
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    n: sorted.length,
    samples: samples.map((s) => round(s, 4)),
  };
}

export function median(samples: readonly number[]): number {
  return quantile(
    [...samples].sort((a, b) => a - b),
    0.5,
  );
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** "1.23 (1.10–1.41, n=9)" */
export function fmt(s: Summary, digits = 2, unit = ""): string {
  return `${fmtNum(s.median, digits)}${unit} (${fmtNum(s.min, digits)}–${fmtNum(s.max, digits)}, n=${s.n})`;
}

export function fmtNum(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(digits);
}

let gcFn: (() => void) | undefined | null;

/** A full GC between samples (so one side does not pay for the other's garbage); no-op if unavailable. */
export function gc(): void {
  if (gcFn === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      gcFn = runInNewContext("gc") as () => void;
    } catch {
      gcFn = null;
    }
  }
  gcFn?.();
}

export const now = (): number => performance.now();
