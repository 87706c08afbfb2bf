// Asks an OpenAI-compatible server for its real context window and served model: the thin fetcher
// over the pure parsers of src/core/context/server-window.ts. One probe per base URL and model,
// remembered for the session; a short timeout each, all endpoints at once, never an error (no
// answer means "unknown"). A key goes only to the base URL's own origin, and no redirect is followed.
import { CALIBRATION_REQUEST, isOllamaPs, type ServerAnswers, type ServerWindow, serverRoot, windowFromAnswers } from "../../core/context/server-window";
import { KEYLESS_API_KEY } from "./catalog";

/** Each endpoint's answer must come this soon: a local server answers in milliseconds, a silent one must not hold a run up. */
export const PROBE_TIMEOUT_MS = 1500;

/**
 * What the servers said, by base URL and model: kept when it is what the server holds (not an
 * assumed default), or when a server that answered says nothing of its window (asked once).
 */
const known = new Map<string, ServerWindow | "silent">();
const running = new Map<string, Promise<ServerWindow | undefined>>();

const keyOf = (baseUrl: string, model: string) => `${baseUrl.replace(/\/+$/, "").toLowerCase()}\n${model.trim()}`;

/** The remembered answer for this server and model, without asking (the meter and the header, which must not wait). */
export function knownServerWindow(baseUrl: string, model: string): ServerWindow | undefined {
  const found = known.get(keyOf(baseUrl, model));
  return found === "silent" ? undefined : found;
}

/** Answers to ask again at the next probe, still shown until then (the header and the meter keep the served model and window). */
const stale = new Set<string>();

/** The server may have been restarted with another window: ask it again at the next run's probe. */
export function askServerWindowAgain(baseUrl: string, model: string): void {
  const key = keyOf(baseUrl, model);
  if (known.has(key)) stale.add(key);
}

/** Forgets every answer (a test starts over; a changed server is asked again). */
export function forgetServerWindows(): void {
  known.clear();
  stale.clear();
}

export interface ProbeOptions {
  /** The OpenAI-compatible server's stored key, sent only to the base URL's own origin. */
  apiKey?: string;
  timeoutMs?: number;
}

/** The server's window and served model, asked once per base URL and model; undefined when no endpoint says. */
export function probeServerWindow(baseUrl: string, model: string, options: ProbeOptions = {}): Promise<ServerWindow | undefined> {
  const key = keyOf(baseUrl, model);
  const remembered = known.get(key);
  if (remembered && !stale.has(key)) return Promise.resolve(remembered === "silent" ? undefined : remembered);
  let probe = running.get(key);
  if (!probe) {
    probe = askServer(baseUrl, model, options)
      .then(({ found, answered }) => {
        stale.delete(key);
        if (found && !found.assumed) known.set(key, found);
        else if (!found && answered) known.set(key, "silent");
        // A server that did not answer (being restarted) is asked again next time; its last answer stays shown.
        else if (remembered) stale.add(key);
        return found;
      })
      .catch(() => undefined)
      .finally(() => running.delete(key));
    running.set(key, probe);
  }
  return probe;
}

/** What the server said (`found`), and whether any endpoint answered at all (a server that is down is asked again). */
async function askServer(baseUrl: string, model: string, options: ProbeOptions): Promise<{ found: ServerWindow | undefined; answered: boolean }> {
  const base = baseUrl.replace(/\/+$/, "");
  const root = serverRoot(base);
  const get = (url: string) => fetchJson(url, base, options);
  const [props, ollamaPs, lmStudio, models] = await Promise.all([
    get(`${root}/props`),
    get(`${root}/api/ps`),
    get(`${root}/api/v0/models`),
    get(`${base}/models`),
  ]);
  const answers: ServerAnswers = { props, ollamaPs, lmStudio, models };
  if (props === undefined) answers.slots = await get(`${root}/slots`);
  if (answers.props !== undefined || answers.slots !== undefined) {
    // llama-server's template and tokenizer may count far more than our estimate (a small vocabulary): measure them.
    const applied = await fetchJson(`${root}/apply-template`, base, options, CALIBRATION_REQUEST);
    const prompt = typeof applied === "object" && applied !== null ? (applied as { prompt?: unknown }).prompt : undefined;
    if (typeof prompt === "string") answers.tokenize = await fetchJson(`${root}/tokenize`, base, options, { content: prompt });
  }
  const answered = [props, ollamaPs, lmStudio, models, answers.slots].some((answer) => answer !== undefined);
  const found = windowFromAnswers(answers, model);
  if (found && !found.assumed) return { found, answered };
  // Ollama with the model not loaded: what it would load it with.
  if (isOllamaPs(ollamaPs)) {
    const name = model.trim() || found?.modelId || firstListed(models);
    if (name) answers.ollamaShow = await fetchJson(`${root}/api/show`, base, options, { model: name });
  }
  return { found: windowFromAnswers(answers, model), answered };
}

function firstListed(models: unknown): string | undefined {
  const data = typeof models === "object" && models !== null ? (models as { data?: unknown }).data : undefined;
  const first = Array.isArray(data) ? (data[0] as { id?: unknown } | undefined) : undefined;
  return typeof first?.id === "string" ? first.id : undefined;
}

/**
 * The key goes with a request only to the origin the user set the base URL (and so the key) for.
 * Probe URLs are built from the base URL, so this holds by construction; the check keeps it so.
 */
export function probeHeaders(url: string, baseUrl: string, apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (!apiKey || apiKey === KEYLESS_API_KEY) return headers;
  try {
    if (new URL(url).origin === new URL(baseUrl).origin) headers.Authorization = `Bearer ${apiKey}`;
  } catch {
    // Not a URL: no key.
  }
  return headers;
}

async function fetchJson(url: string, baseUrl: string, options: ProbeOptions, body?: unknown): Promise<unknown> {
  try {
    const headers = probeHeaders(url, baseUrl, options.apiKey);
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(url, {
      method: body === undefined ? "GET" : "POST",
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      // A redirect could lead the key elsewhere: a probe never follows one.
      redirect: "error",
      signal: AbortSignal.timeout(options.timeoutMs ?? PROBE_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A working window when neither the server nor the setting says one: compaction needs a figure,
 * but the meter shows "unknown" rather than this.
 */
const GUESSED_WINDOW = 32_768;

/**
 * An OpenAI-compatible model's window: what its server says it holds, the setting when the server
 * does not say (or a smaller setting: never more than the server holds), else unknown.
 */
export function compatibleWindow(set: number | undefined, server: ServerWindow | undefined): { tokens: number; known: boolean } {
  if (server) return { tokens: set !== undefined ? Math.min(set, server.contextWindow) : server.contextWindow, known: true };
  if (set !== undefined) return { tokens: set, known: true };
  return { tokens: GUESSED_WINDOW, known: false };
}
