// What a local OpenAI-compatible server says about the model it serves: its real context window
// (the one it was started or loaded with, not the model's advertised one) and the id it serves.
// Pure parsers of each server's own JSON (llama.cpp's llama-server, Ollama, LM Studio, vLLM); the
// host's fetcher (src/host/providers/server-probe.ts) asks the endpoints and hands the bodies here.
import { tokensOfText } from "./tokens";

export type LocalServerKind = "llama.cpp" | "ollama" | "lmstudio" | "vllm";

/** Where a binding's `model.contextWindow` came from, when it is not the provider's catalog. */
export interface BindingWindow {
  /** False: neither the server nor a setting said; `model.contextWindow` is only a working guess the meter does not show. */
  known: boolean;
  /** The server that said it (its own setting for the window is named in the fixed-cost message). */
  server?: LocalServerKind;
  /** The server's tokens per estimated token (≥ 1): requests are measured with it before they are sent. */
  tokenScale?: number;
}

/** What one server told us about its window. */
export interface ServerWindow {
  server: LocalServerKind;
  /** Tokens the server holds for one request (prompt and answer together). */
  contextWindow: number;
  /** The model the server serves (its id or alias), when it said. */
  modelId?: string;
  /** Where the figure came from, for the log and Show Model Context ("/props n_ctx"). */
  source: string;
  /**
   * The figure is the server's default for a model it has not loaded yet (Ollama's num_ctx), not
   * what it holds: asked again next time rather than kept.
   */
  assumed?: boolean;
  /** The server's tokens per token of our estimate (≥ 1), measured with its own tokenizer. */
  tokenScale?: number;
}

/**
 * Ollama's default num_ctx for a model it loads without one (OLLAMA_CONTEXT_LENGTH unset, no
 * Modelfile num_ctx): 4,096 since 0.6; a model's advertised length is not what it gets.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

/** The server root of a base URL: `http://host:8080/v1` → `http://host:8080` (the native endpoints live there). */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/i, "");
}

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

function list(value: unknown): Json[] {
  if (!Array.isArray(value)) return [];
  const found: Json[] = [];
  for (const entry of value as unknown[]) {
    const item = object(entry);
    if (item) found.push(item);
  }
  return found;
}

/** llama-server's `GET /props`: `default_generation_settings.n_ctx` (the window of one slot), `model_alias`/`model_path`. */
export function parseLlamaProps(body: unknown): ServerWindow | undefined {
  const props = object(body);
  const window = positiveInt(object(props?.default_generation_settings)?.n_ctx);
  if (!props || window === undefined) return undefined;
  const modelId = text(props.model_alias) ?? text(props.model_path);
  return { server: "llama.cpp", contextWindow: window, ...(modelId ? { modelId } : {}), source: "llama-server /props n_ctx" };
}

/** llama-server's `GET /slots`: each slot's `n_ctx` (the smallest is what a request can count on). */
export function parseLlamaSlots(body: unknown): ServerWindow | undefined {
  const sizes = list(body).flatMap((slot) => positiveInt(slot.n_ctx) ?? []);
  if (sizes.length === 0) return undefined;
  return { server: "llama.cpp", contextWindow: Math.min(...sizes), source: "llama-server /slots n_ctx" };
}

/** Ollama names a model `name:tag`; a name without a tag means `:latest`. */
function ollamaName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.includes(":") ? lower : `${lower}:latest`;
}

/**
 * Ollama's `GET /api/ps`: the loaded models, each with the `context_length` it was loaded with —
 * what counts. The model asked for (or, without one, the only one loaded); undefined when it is
 * not loaded. `isOllamaPs` tells an Ollama that has nothing loaded from a server that is not Ollama.
 */
export function parseOllamaPs(body: unknown, model: string): ServerWindow | undefined {
  const loaded = list(object(body)?.models);
  const wanted = model.trim() ? ollamaName(model) : undefined;
  const match = wanted
    ? loaded.find((m) => [m.name, m.model].some((n) => typeof n === "string" && ollamaName(n) === wanted))
    : loaded.length === 1
      ? loaded[0]
      : undefined;
  const window = positiveInt(match?.context_length);
  if (!match || window === undefined) return undefined;
  const modelId = text(match.name) ?? text(match.model);
  return { server: "ollama", contextWindow: window, ...(modelId ? { modelId } : {}), source: "Ollama /api/ps context_length" };
}

export function isOllamaPs(body: unknown): boolean {
  return Array.isArray(object(body)?.models);
}

/**
 * Ollama's `POST /api/show`: the model's own length (`model_info["<arch>.context_length"]`) and its
 * Modelfile's `num_ctx`, if any. Not loaded yet, the model gets num_ctx, else the server's default
 * (OLLAMA_CONTEXT_LENGTH, else OLLAMA_DEFAULT_NUM_CTX), never more than its own length: assumed.
 */
export function parseOllamaShow(body: unknown, model: string): ServerWindow | undefined {
  const show = object(body);
  const info = object(show?.model_info);
  if (!show || !info) return undefined;
  const trained = Object.entries(info).find(([key, value]) => key.endsWith(".context_length") && positiveInt(value) !== undefined)?.[1] as number | undefined;
  const numCtx = typeof show.parameters === "string" ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.parameters)?.[1] : undefined;
  const configured = numCtx ? Number(numCtx) : OLLAMA_DEFAULT_NUM_CTX;
  const window = trained ? Math.min(trained, configured) : configured;
  return {
    server: "ollama",
    contextWindow: window,
    ...(model.trim() ? { modelId: model.trim() } : {}),
    source: numCtx ? "Ollama /api/show num_ctx" : "Ollama's default num_ctx (model not loaded)",
    assumed: true,
  };
}

/**
 * LM Studio's `GET /api/v0/models`: each model's `state`, `loaded_context_length` (what it was
 * loaded with) and `max_context_length` (what it could take). The model asked for, else the loaded one.
 */
export function parseLmStudioModels(body: unknown, model: string): ServerWindow | undefined {
  const models = list(object(body)?.data).filter((m) => m.type === undefined || m.type === "llm" || m.type === "vlm");
  const wanted = model.trim().toLowerCase();
  const match = wanted ? models.find((m) => typeof m.id === "string" && m.id.toLowerCase() === wanted) : models.find((m) => m.state === "loaded");
  if (!match) return undefined;
  const loaded = positiveInt(match.loaded_context_length);
  const max = positiveInt(match.max_context_length);
  const window = loaded ?? max;
  if (window === undefined) return undefined;
  const modelId = text(match.id);
  return {
    server: "lmstudio",
    contextWindow: window,
    ...(modelId ? { modelId } : {}),
    source: loaded ? "LM Studio loaded_context_length" : "LM Studio max_context_length (model not loaded)",
    ...(loaded ? {} : { assumed: true }),
  };
}

/**
 * The OpenAI-style `GET /v1/models`: the served ids; vLLM adds `max_model_len` (its window), and
 * llama-server `meta.n_ctx`. The model asked for, else the first listed.
 */
export function parseOpenAIModels(body: unknown, model: string): { modelId?: string; window?: ServerWindow } {
  const models = list(object(body)?.data).filter((m) => text(m.id));
  const wanted = model.trim().toLowerCase();
  const match = (wanted ? models.find((m) => (m.id as string).toLowerCase() === wanted) : undefined) ?? (wanted ? undefined : models[0]);
  if (!match) return {};
  const modelId = match.id as string;
  const vllm = positiveInt(match.max_model_len);
  if (vllm) return { modelId, window: { server: "vllm", contextWindow: vllm, modelId, source: "vLLM /v1/models max_model_len" } };
  const llama = positiveInt(object(match.meta)?.n_ctx);
  if (llama) return { modelId, window: { server: "llama.cpp", contextWindow: llama, modelId, source: "llama-server /v1/models meta.n_ctx" } };
  return { modelId };
}

/**
 * A request's fixed part in small, to measure the server's tokens against our estimate: a system
 * prompt and tool declarations of the usual shapes, rendered by the server's own chat template
 * (which adds its tool instructions and spacing) and counted by its tokenizer.
 */
export const CALIBRATION_REQUEST = {
  messages: [
    {
      role: "system",
      content:
        "You are a coding assistant working in the user's workspace. Read files before you edit them, keep changes small, and say what you changed. Paths are relative to the workspace root.",
    },
  ],
  tools: [
    tool("read_file", "Read a text file of the workspace. Large files are returned in parts: ask for the next part with offset.", {
      path: { type: "string", description: "Path relative to the workspace root" },
      offset: { type: "number", description: "Line to start at (1-based)" },
      limit: { type: "number", description: "Most lines to return" },
    }),
    tool("edit_file", "Replace an exact text in a file of the workspace. The old text must occur exactly once; include enough context.", {
      path: { type: "string", description: "Path relative to the workspace root" },
      oldText: { type: "string", description: "The exact text to replace" },
      newText: { type: "string", description: "The text to put in its place" },
    }),
    tool("search", "Search the workspace's files for a regular expression; returns matching lines with their paths and line numbers.", {
      pattern: { type: "string", description: "A regular expression" },
      include: { type: "string", description: "A glob of the files to search, e.g. src/**/*.ts" },
    }),
  ],
};

function tool(name: string, description: string, properties: Record<string, unknown>) {
  return { type: "function", function: { name, description, parameters: { type: "object", properties, required: Object.keys(properties).slice(0, 1) } } };
}

/** Our estimate of CALIBRATION_REQUEST, counted the way request-fit.ts counts a request. */
export function calibrationEstimate(): number {
  let tokens = 0;
  for (const message of CALIBRATION_REQUEST.messages) tokens += tokensOfText(message.content);
  for (const declared of CALIBRATION_REQUEST.tools)
    tokens += tokensOfText(declared.function.name + declared.function.description + JSON.stringify(declared.function.parameters));
  return tokens;
}

/** The most a calibration may scale our estimate by: a tokenizer counting more is a broken answer. */
const MAX_TOKEN_SCALE = 4;

/**
 * llama-server's `POST /tokenize` of CALIBRATION_REQUEST as its `/apply-template` rendered it: the
 * server's tokens per estimated token, at least 1 (our estimate is never scaled down).
 */
export function parseTokenScale(body: unknown): number | undefined {
  const tokens = object(body)?.tokens;
  const count = Array.isArray(tokens) ? tokens.length : positiveInt(object(body)?.count);
  if (!count) return undefined;
  const scale = count / calibrationEstimate();
  return Math.min(MAX_TOKEN_SCALE, Math.max(1, Math.ceil(scale * 100) / 100));
}

/** The bodies the host fetched (undefined: no answer, not JSON, or not 2xx). */
export interface ServerAnswers {
  props?: unknown;
  slots?: unknown;
  ollamaPs?: unknown;
  ollamaShow?: unknown;
  lmStudio?: unknown;
  models?: unknown;
  tokenize?: unknown;
}

/**
 * The window from what the servers answered, in order of trust: what the server holds now
 * (llama-server's n_ctx, Ollama's loaded model, LM Studio's loaded model, vLLM's max_model_len),
 * then what a model not yet loaded would get.
 */
export function windowFromAnswers(answers: ServerAnswers, model: string): ServerWindow | undefined {
  const listed = answers.models !== undefined ? parseOpenAIModels(answers.models, model) : {};
  const found =
    (answers.props !== undefined ? parseLlamaProps(answers.props) : undefined) ??
    (answers.slots !== undefined ? parseLlamaSlots(answers.slots) : undefined) ??
    (answers.ollamaPs !== undefined ? parseOllamaPs(answers.ollamaPs, model || listed.modelId || "") : undefined) ??
    (answers.lmStudio !== undefined ? parseLmStudioModels(answers.lmStudio, model) : undefined) ??
    listed.window ??
    (answers.ollamaShow !== undefined ? parseOllamaShow(answers.ollamaShow, model || listed.modelId || "") : undefined);
  if (!found) return undefined;
  const modelId = found.modelId ?? listed.modelId;
  const scale = answers.tokenize !== undefined ? parseTokenScale(answers.tokenize) : undefined;
  return { ...found, ...(modelId ? { modelId } : {}), ...(scale && scale > 1 ? { tokenScale: scale } : {}) };
}

/** The server's own setting for its window, named for the user (the fixed-cost message). */
export function windowSettingFix(server: LocalServerKind | undefined): string {
  switch (server) {
    case "llama.cpp":
      return "start llama-server with a larger window, for example `-c 16384`";
    case "ollama":
      return "give the model a larger window in Ollama: set OLLAMA_CONTEXT_LENGTH=16384 for the server, or `PARAMETER num_ctx 16384` in a Modelfile";
    case "lmstudio":
      return "load the model in LM Studio with a larger context length";
    case "vllm":
      return "start vLLM with a larger `--max-model-len`";
    default:
      return "give the server a larger context window (llama-server `-c`, Ollama OLLAMA_CONTEXT_LENGTH or num_ctx, LM Studio's context length, vLLM `--max-model-len`)";
  }
}
