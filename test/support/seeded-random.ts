// Deterministic randomness for generated test and benchmark data (the same seed gives the same
// data on every machine, so a failure can be reproduced and figures compared across runs).

/** mulberry32: small, fast, good enough for test data. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  id(prefix: string): string {
    let s = "";
    for (let i = 0; i < 20; i++) s += "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(this.next() * 36)];
    return `${prefix}_${s}`;
  }
}
