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
}

/**
 * Classifies an assistant message's `errorMessage`. `provider`, when given, names the
 * environment variable in the set-key fix. Key-like strings are redacted from any text returned.
 */
export function describeProviderError(errorMessage: string | undefined, provider?: ProviderId): ProviderErrorDescription {
  const message = (errorMessage ?? "").trim();
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
    return { text: "The provider rejected the API key.", fix: setKeyFix(provider), fixCommand: "setApiKey" };
  }

  if (status === 403 || /permission_denied|permission denied|forbidden/.test(lower)) {
    return {
      text: "The provider refused the request (access denied).",
      fix: "Check that the API key has access to this model, or choose another model.",
    };
  }

  if (status === 429 || /rate limit|rate_limit|too many requests|resource_exhausted|exceeded your current quota/.test(lower)) {
    const quota = /quota/.test(lower) ? " If it keeps happening, check the quota of the provider account." : "";
    return { text: "The provider is rate-limiting requests.", fix: `Wait a moment, then continue the chat.${quota}` };
  }

  if (status === 529 || status === 503 || /overloaded|service unavailable/.test(lower)) {
    return { text: "The provider is overloaded or unavailable right now.", fix: "Wait a moment, then continue the chat." };
  }

  if (isContextOverflow(errorAssistantMessage(message))) {
    return {
      text: "The conversation is too long for this model's context window.",
      fix: "Start a new chat, or choose a model with a larger context window.",
    };
  }

  const network =
    /econnrefused|enotfound|eai_again|etimedout|econnreset|ehostunreach|enetunreach|fetch failed|connection error|socket hang up|getaddrinfo|request timed out|timed out|network error|certificate|self[- ]signed/.exec(
      lower,
    );
  if (network) {
    const code = /\b(E[A-Z_]{4,})\b/.exec(message)?.[1];
    return {
      text: `Could not reach the provider${code ? ` (${code})` : ""}.`,
      fix: "Check the network connection; for a local or custom server, check that it is running and that the base URL is right.",
    };
  }

  if (/model_not_found|model not found|does not exist|unknown model|no such model|not_found_error.*model/.test(lower)) {
    return { text: "The provider does not know this model.", fix: `Choose another model with “${SELECT_MODEL_COMMAND}”.`, fixCommand: "selectModel" };
  }

  if (status === 404) {
    return {
      text: "The server answered 404 Not Found.",
      fix: "Check the base URL (for OpenAI-compatible servers it usually ends in /v1) and the model id.",
    };
  }

  if (status !== undefined && status >= 500) {
    return { text: `The provider had an internal error (${status}).`, fix: "Wait a moment, then continue the chat." };
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
