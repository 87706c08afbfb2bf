// Keeping API keys out of everything Pi Chat logs, saves or posts. A provider's answer is
// untrusted text: a server may echo the key it was sent (in an error body, a header dump, an
// exception text), and a key need not look like any known key shape. So the keys actually in
// use are redacted by value — the whole key, and each of its lines, should one contain a line
// break — and then the usual key shapes (sk-…, AIza…, Bearer …, key=…) as a second net.

/** What a redacted key is replaced with. */
export const REDACTED = "[redacted]";

/**
 * Shorter values are not redacted by value: a 1–5 character "key" (or a line of one) would blank
 * out ordinary words everywhere. Real keys are far longer; the shape patterns still apply.
 */
export const MIN_REDACTED_LENGTH = 6;

/** A key-ish word: at least 12 characters with a letter and a digit (ordinary words have no digit). */
const KEYISH = String.raw`(?=[A-Za-z0-9._~+/=\-]*[0-9])(?=[A-Za-z0-9._~+/=\-]*[A-Za-z])[A-Za-z0-9._~+/=\-]{12,}`;

/** The usual key shapes and what each becomes. Global patterns: `cutPoint` reads their matches too. */
const KEY_SHAPES: readonly [pattern: RegExp, replacement: string][] = [
  [/\b(sk|pk|rk)-[A-Za-z0-9_\-*.]{6,}/g, "$1-…"],
  [/\bAIza[0-9A-Za-z_-]{10,}/g, "AIza…"],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=\-*]{6,}/gi, "$1 …"],
  [/([?&](?:key|api_key|apikey|access_token)=)[^&\s"']+/gi, "$1…"],
  [/("?(?:api[_-]?key|x-api-key|x-goog-api-key|authorization)"?\s*[:=]\s*"?)[^"\s,}]{6,}/gi, "$1…"],
  // "bad key <k>", "token <k> rejected", "secret: <k>": a key-ish word after a word that names one.
  [new RegExp(String.raw`(?<![A-Za-z0-9])((?:api[_ -]?)?(?:key|token|secret|password|passwd|credential)s?)(\s+|\s*[:=]\s*)${KEYISH}`, "gi"), "$1$2…"],
];

/** Removes strings that look like API keys or bearer tokens. */
export function redactKeyShapes(text: string): string {
  let out = text;
  for (const [pattern, replacement] of KEY_SHAPES) out = out.replace(pattern, replacement);
  return out;
}

/** Redacts the keys it was told about, and key shapes. One per extension; keys are added as they are used. */
export class SecretRedactor {
  private readonly known = new Set<string>();
  /** Longest first, so a key is replaced before a line of it. */
  private ordered: string[] = [];

  /** Adds a key (and the forms it takes in JSON, URLs and per line). Empty and very short values are ignored. */
  add(secret: string | undefined | null): void {
    if (typeof secret !== "string") return;
    const before = this.known.size;
    for (const form of secretForms(secret)) if (form.length >= MIN_REDACTED_LENGTH) this.known.add(form);
    if (this.known.size !== before) this.ordered = [...this.known].sort((a, b) => b.length - a.length);
  }

  /** Forgets every key (a test's cleanup; keys otherwise stay redacted for the life of the extension). */
  clear(): void {
    this.known.clear();
    this.ordered = [];
  }

  get size(): number {
    return this.known.size;
  }

  text(text: string): string {
    return redactKeyShapes(this.values(text));
  }

  /** Only the keys by value, no shapes: what is safe to apply to a stream piece by piece. */
  values(text: string): string {
    let out = text;
    for (const value of this.ordered) if (out.includes(value)) out = out.split(value).join(REDACTED);
    return out;
  }

  /**
   * Where a stream's pending text (a line that never ends) can be cut so that no key and no key
   * shape is split across the cut: at most `text.length - hold` (and the longest key), moved back
   * to the start of any match that spans it. 0 when the text cannot be cut safely.
   */
  cutPoint(text: string, hold: number): number {
    const spans: [number, number][] = [];
    for (const value of this.ordered) for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) spans.push([at, at + value.length]);
    for (const [pattern] of KEY_SHAPES) for (const m of text.matchAll(pattern)) spans.push([m.index, m.index + m[0].length]);
    let cut = Math.max(0, text.length - Math.max(hold, this.longest));
    for (let moved = true; moved; ) {
      moved = false;
      for (const [start, end] of spans)
        if (start < cut && cut < end) {
          cut = start;
          moved = true;
        }
    }
    return cut;
  }

  /**
   * How many characters at the end of `text` could be the start of a key (or of one of its forms):
   * the longest end that is the beginning of a known value, 0 when none is. Only such an end is
   * unsafe to show before the next piece of a stream arrives.
   */
  keyStartAtEnd(text: string): number {
    let held = 0;
    for (const value of this.ordered) {
      // Candidate starts are where the value's first character occurs within its reach of the end.
      const first = value.charAt(0);
      for (let at = text.indexOf(first, Math.max(0, text.length - value.length + 1)); at !== -1 && text.length - at > held; at = text.indexOf(first, at + 1)) {
        if (value.startsWith(text.slice(at))) {
          held = text.length - at;
          break;
        }
      }
    }
    return held;
  }

  /** Length of the longest value redacted (0 when none). */
  get longest(): number {
    return this.ordered[0]?.length ?? 0;
  }

  /**
   * The value with every string in it redacted (keys of objects too). Returns the same object when
   * nothing changed, so unchanged messages keep their identity and cost no copy.
   */
  deep<T>(value: T): T {
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === "string") return this.text(value);
    if (typeof value !== "object" || value === null || depth > 64) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const next = this.walk(value[i], depth + 1);
        if (next !== value[i]) (copy ??= value.slice())[i] = next;
      }
      return copy ?? value;
    }
    if (value instanceof Uint8Array) return value;
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = this.walk(item, depth + 1);
      const nextKey = this.text(key);
      if (next !== item || nextKey !== key) {
        copy ??= { ...(value as Record<string, unknown>) };
        if (nextKey !== key) delete copy[key];
        copy[nextKey] = next;
      }
    }
    return copy ?? value;
  }
}

/** The key, trimmed, each of its lines, and how JSON and URLs escape them. */
function secretForms(secret: string): string[] {
  const whole = secret.trim();
  const lines = whole.split(/\r\n|\r|\n/).map((l) => l.trim());
  const forms = new Set<string>([whole, ...lines]);
  for (const form of [...forms]) {
    forms.add(JSON.stringify(form).slice(1, -1));
    forms.add(encodeURIComponent(form));
  }
  return [...forms].filter((f) => f !== "");
}

/**
 * Redaction of streamed text. A key can arrive split across two deltas (and the host merges
 * deltas into one frame), so after every complete key is replaced, a block's text is held back
 * only where its end could be the start of a key (`keyStartAtEnd`): "Your key: sk-ant-a" waits
 * for the next delta, "Thinking about it" is shown at once, however long the keys known. Flushed
 * at the next block and at the end of the message. With no key known nothing is held.
 */
export class StreamRedaction {
  private readonly held = new Map<number, string>();

  constructor(private readonly redactor: Pick<SecretRedactor, "values" | "keyStartAtEnd">) {}

  /** The text of block `index` that is safe to show now ("" when all of it is held). */
  delta(index: number, text: string): string {
    const pending = this.redactor.values((this.held.get(index) ?? "") + text);
    const keep = this.redactor.keyStartAtEnd(pending);
    this.held.set(index, pending.slice(pending.length - keep));
    return pending.slice(0, pending.length - keep);
  }

  /** Everything still held, per block, redacted; forgets it. */
  flush(): [index: number, text: string][] {
    const out: [number, string][] = [];
    for (const [index, text] of this.held) if (text !== "") out.push([index, this.redactor.values(text)]);
    this.held.clear();
    return out;
  }
}
