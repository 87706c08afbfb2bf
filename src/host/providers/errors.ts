// Turns a provider's error text (AssistantMessage.errorMessage) into what the chat shows:
// one plain sentence and, where there is one, the fix. No VS Code here.
import { isContextOverflow, type AssistantMessage } from "@earendil-works/pi-ai";
import type { FixCommandId } from "../../shared/app-messages";
import { redactKeyShapes } from "../../core/redaction";
import type { ProviderId } from "./catalog";
import { ENV_VARS, SET_API_KEY_COMMAND, SELECT_MODEL_COMMAND } from "./catalog";

export interface ProviderErrorDescription {
  text: string;
  fix?: string;
  /** The command that does the fix, offered as a button. */
  fixCommand?: FixCommandId;
  /** Other ways out, as buttons after it. */
  moreFixCommands?: FixCommandId[];
}

/** Where the failed request went: an OpenAI-compatible server's errors name its URL and model. */
export interface FailedRequestTarget {
  baseUrl?: string;
  /** The model id the request asked for. */
  id?: string;
}

/** Why a connection failed, in words, from the error code Node puts in the message. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused, is the server running?",
  ENOTFOUND: "the name does not resolve",
  EAI_AGAIN: "the host name could not be looked up",
  ETIMEDOUT: "the connection timed out",
  ECONNRESET: "the connection was reset",
  EHOSTUNREACH: "the host cannot be reached",
  ENETUNREACH: "the network cannot be reached",
};

/** Where each cloud provider's requests go, for a network error that does not name the host. */
const PROVIDER_HOSTS: Partial<Record<ProviderId, string>> = {
  anthropic: "api.anthropic.com",
  openai: "api.openai.com",
  google: "generativelanguage.googleapis.com",
};

/**
 * Classifies an assistant message's `errorMessage`. `provider`, when given, names the
 * environment variable in the set-key fix; for an OpenAI-compatible server, `target` puts its URL
 * and model in the words and the buttons are the ones that fix a local server (settings, model,
 * retry). Key-like strings are redacted from any text returned.
 */
export function describeProviderError(errorMessage: string | undefined, provider?: ProviderId, target: FailedRequestTarget = {}): ProviderErrorDescription {
  const message = (errorMessage ?? "").trim();
  const local = provider === "openai-compatible" ? describeServerError(message, target) : undefined;
  if (local) return local;
  const vscodeModel = provider === "vscode-lm" ? describeVscodeModelError(message) : undefined;
  if (vscodeModel) return vscodeModel;
  return describeAnyProviderError(message, provider);
}

/** The errors of an OpenAI-compatible server that its URL explains: unreachable, refused key, unknown model. */
function describeServerError(message: string, target: FailedRequestTarget): ProviderErrorDescription | undefined {
  const lower = message.toLowerCase();
  const status = leadingStatus(message);
  const url = target.baseUrl ?? "the base URL in the settings";
  const server = `the OpenAI-compatible server at ${url}`;
  if (isNetworkError(lower)) {
    const code = /\b(E[A-Z_]{4,})\b/.exec(message)?.[1];
    const reason = (code && NETWORK_REASONS[code]) ?? (code ? code : "no answer; is the server running?");
    return {
      text: `Could not reach ${server}: ${reason}.`,
      fix: "Start the server, or set the right base URL in the settings (piChat.baseUrl).",
      fixCommand: "openSettings",
      moreFixCommands: ["selectChatModel", "retry"],
    };
  }
  if (status === 401 || status === 403) {
    return {
      text: `${capitalize(server)} refused the request (${status}): it wants an API key, or another one.`,
      fix: `Store the server's key with “${SET_API_KEY_COMMAND}”.`,
      fixCommand: "setApiKey",
      moreFixCommands: ["openSettings", "retry"],
    };
  }
  if (status === 404 || /model_not_found|model not found|does not exist|unknown model|no such model/.test(lower)) {
    const model = target.id ? `the model “${target.id}”` : "this model";
    return {
      text: `${capitalize(server)} does not serve ${model}${status === 404 ? " (404)" : ""}.`,
      fix: "Choose one of the models it serves, or check the base URL (it usually ends in /v1).",
      fixCommand: "selectChatModel",
      moreFixCommands: ["openSettings", "retry"],
    };
  }
  return undefined;
}

/**
 * The LanguageModelError codes of VS Code's own models (src/host/vscode-models writes
 * "VS Code language model error (CODE): …"): consent refused, quota or rate limit, model gone.
 */
function describeVscodeModelError(message: string): ProviderErrorDescription | undefined {
  const code = /^VS Code language model error \((\w+)\)/.exec(message)?.[1];
  if (!code) return undefined;
  const detail = message.replace(/^VS Code language model error \(\w+\):\s*/, "");
  if (code === "NoPermissions")
    return {
      text: "VS Code did not let Pi Chat use this model: the permission was refused (VS Code asks once whether Pi Chat may use another extension's models).",
      fix: "Send again and allow it when VS Code asks; or choose another model.",
      fixCommand: "retry",
      moreFixCommands: ["selectChatModel"],
    };
  if (code === "Blocked")
    return {
      text: `The model's extension refused the request: a quota or rate limit${detail ? ` (${detail})` : ""}.`,
      fix: "Wait a moment, then retry; if it keeps happening, check your plan with the extension that provides the model, or choose another model.",
      fixCommand: "retry",
      moreFixCommands: ["selectChatModel"],
    };
  if (code === "NotFound")
    return {
      text: "VS Code no longer has this model: the extension that provided it may be disabled or signed out.",
      fix: `Choose another model with “${SELECT_MODEL_COMMAND}”.`,
      fixCommand: "selectChatModel",
    };
  return {
    text: `The model's extension failed: ${redactSecrets(detail || code)}`,
    fix: "Retry, or choose another model.",
    fixCommand: "retry",
    moreFixCommands: ["selectChatModel"],
  };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const NETWORK_PATTERN =
  /econnrefused|enotfound|eai_again|etimedout|econnreset|ehostunreach|enetunreach|fetch failed|connection error|socket hang up|getaddrinfo|request timed out|timed out|network error|certificate|self[- ]signed/;

function isNetworkError(lower: string): boolean {
  return NETWORK_PATTERN.test(lower);
}

/** A failed answer that may mean the server's window changed: it said the request is too long, or it is not there (being restarted). */
export function mayMeanWindowChanged(answer: AssistantMessage): boolean {
  return answer.stopReason === "error" && (isContextOverflow(answer) || isNetworkError((answer.errorMessage ?? "").toLowerCase()));
}

function describeAnyProviderError(message: string, provider: ProviderId | undefined): ProviderErrorDescription {
  const lower = message.toLowerCase();
  const status = leadingStatus(message);

  if (!message) return { text: "The request failed without an error message." };

  if (/request was aborted|request aborted/.test(lower)) return { text: "The reply was stopped." };

  // Billing before auth and rate limits: a 429 "insufficient_quota" does not go away by waiting.
  if (/insufficient_quota|credit balance is too low|payment required|billing_hard_limit/.test(lower) || status === 402) {
    return {
      text: "The provider account has no quota or credit left.",
      fix: "Check the plan and billing of the provider account, or set a key of another account.",
    };
  }

  if (
    status === 401 ||
    /invalid_api_key|incorrect api key|invalid api key|invalid x-api-key|api key not valid|api_key_invalid|authentication_error|unauthorized|unauthenticated|no api key for provider|provider is not configured|missing api key/.test(
      lower,
    )
  ) {
    return { text: "The provider rejected the API key.", fix: setKeyFix(provider), fixCommand: "setApiKey", moreFixCommands: ["selectChatModel", "retry"] };
  }

  if (status === 403 || /permission_denied|permission denied|forbidden/.test(lower)) {
    return {
      text: "The provider refused the request (access denied).",
      fix: "Check that the API key has access to this model, or choose another model.",
    };
  }

  if (status === 429 || /rate limit|rate_limit|too many requests|resource_exhausted|exceeded your current quota/.test(lower)) {
    const quota = /quota/.test(lower) ? " If it keeps happening, check the quota of the provider account." : "";
    return { text: "The provider is rate-limiting requests.", fix: `Wait a moment, then retry.${quota}`, fixCommand: "retry" };
  }

  if (status === 529 || status === 503 || /overloaded|service unavailable/.test(lower)) {
    return { text: "The provider is overloaded or unavailable right now.", fix: "Wait a moment, then retry.", fixCommand: "retry" };
  }

  if (isContextOverflow(errorAssistantMessage(message))) {
    return {
      text: "The conversation is too long for this model's context window.",
      fix: "Start a new chat, or choose a model with a larger context window.",
    };
  }

  if (isNetworkError(lower)) {
    // In words, naming the host: "Could not reach api.openai.com: the name does not resolve", never a bare "ENOTFOUND".
    const code = /\b(E[A-Z_]{4,})\b/.exec(message)?.[1];
    const host = /\b(?:ENOTFOUND|EAI_AGAIN)\s+([A-Za-z0-9][A-Za-z0-9.-]{0,252})/.exec(message)?.[1] ?? (provider ? PROVIDER_HOSTS[provider] : undefined);
    const reason = (code && NETWORK_REASONS[code]) ?? "no answer";
    return {
      text: `Could not reach ${host ?? "the provider"}: ${reason}; check your network or proxy.`,
      fix: "Check the network connection; for a local or custom server, check that it is running and that the base URL is right.",
      fixCommand: "retry",
      moreFixCommands: ["openSettings"],
    };
  }

  if (/model_not_found|model not found|does not exist|unknown model|no such model|not_found_error.*model/.test(lower)) {
    return { text: "The provider does not know this model.", fix: `Choose another model with “${SELECT_MODEL_COMMAND}”.`, fixCommand: "selectChatModel" };
  }

  if (status === 404) {
    return {
      text: "The server answered 404 Not Found.",
      fix: "Check the base URL (for OpenAI-compatible servers it usually ends in /v1) and the model id.",
    };
  }

  if (status !== undefined && status >= 500) {
    return { text: `The provider had an internal error (${status}).`, fix: "Wait a moment, then retry.", fixCommand: "retry" };
  }

  return { text: redactSecrets(message) };
}

/** The set-key fix for a provider; also used by the setup errors. */
export function setKeyFix(provider: ProviderId | undefined): string {
  const vars = provider ? ENV_VARS[provider] : [];
  if (vars.length === 0) return `Run “${SET_API_KEY_COMMAND}” to enter a valid key.`;
  return `Run “${SET_API_KEY_COMMAND}” or set ${vars.join(" or ")}.`;
}

/** Removes strings that look like API keys or bearer tokens (the keys in use are redacted by value in the host). */
export const redactSecrets = redactKeyShapes;

/** "401 Incorrect API key…" (openai SDK) or "401: {…}" (pi-ai's formatProviderError). */
function leadingStatus(message: string): number | undefined {
  const match = /^(?:[\w -]+ API error \()?([1-5]\d\d)(?:\)|:|\s|$)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

function errorAssistantMessage(errorMessage: string): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: "unknown",
    model: "unknown",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "error",
    errorMessage,
    timestamp: 0,
  };
}
