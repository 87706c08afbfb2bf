// How a chat run's errors are told: a setup error (no API key, unknown model) with its fix,
// recognised across bundles by its code, and the error notices a run appends to the chat.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { isFixCommandId, type FixCommandId } from "../../shared/app-messages";
import type { LocalNoticeMessage } from "../messages";

/** Marks a RunSetupError. Recognised by this code, not by its class: out/providers.js is a separate bundle with its own copy of the class. */
export const RUN_SETUP_ERROR_CODE = "PI_CHAT_RUN_SETUP";

/** What a notice offers about an error: the fix in words, its button, and further ways out. */
export interface ErrorFix {
  fix?: string;
  fixCommand?: FixCommandId;
  moreFixCommands?: FixCommandId[];
  /** The provider's own words. */
  detail?: string;
}

/** A problem that stops a run before the model is called (no API key, unknown model): shown with its fix. */
export class RunSetupError extends Error {
  readonly code = RUN_SETUP_ERROR_CODE;
  constructor(
    message: string,
    readonly fix?: string,
    readonly fixCommand?: FixCommandId,
    readonly moreFixCommands?: FixCommandId[],
  ) {
    super(message);
  }
}

/** The fix a setup error carries, from whichever bundle threw it. */
export function runSetupFix(error: unknown): ErrorFix | undefined {
  if (typeof error !== "object" || error === null || (error as { code?: unknown }).code !== RUN_SETUP_ERROR_CODE) return undefined;
  const { fix, fixCommand, moreFixCommands } = error as { fix?: unknown; fixCommand?: unknown; moreFixCommands?: unknown };
  const more = Array.isArray(moreFixCommands) ? moreFixCommands.filter(isFixCommandId) : [];
  return {
    ...(typeof fix === "string" ? { fix } : {}),
    ...(isFixCommandId(fixCommand) ? { fixCommand } : {}),
    ...(more.length > 0 ? { moreFixCommands: more } : {}),
  };
}

/** The model a failed request went to, so its error can name the server (the URL) as well as the provider. */
export interface FailedRequestModel {
  provider: string;
  id: string;
  baseUrl?: string;
}

/** The run ended in an error or was stopped: its last message says so (a notice after an error too). */
export function endedBadly(messages: readonly AgentMessage[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "localNotice" && m.level === "error") return true;
    if (m.role === "assistant") return m.stopReason === "error" || m.stopReason === "aborted";
  }
  return false;
}

/** The fix with Retry among its buttons: first when it has none, else after the others. */
export function withRetry<T extends ErrorFix>(fix: T): T {
  if (!fix.fixCommand) return { ...fix, fixCommand: "retry" };
  if (fix.fixCommand === "retry" || fix.moreFixCommands?.includes("retry")) return fix;
  return { ...fix, moreFixCommands: [...(fix.moreFixCommands ?? []), "retry"] };
}

export function errorNotice(text: string, fix: ErrorFix | undefined): LocalNoticeMessage {
  return {
    role: "localNotice",
    level: "error",
    text,
    ...(fix?.fix ? { fix: fix.fix } : {}),
    ...(fix?.fixCommand ? { fixCommand: fix.fixCommand } : {}),
    ...(fix?.moreFixCommands?.length ? { moreFixCommands: fix.moreFixCommands } : {}),
    ...(fix?.detail ? { detail: fix.detail } : {}),
    timestamp: Date.now(),
  };
}

/** The path ends with an error notice (after the turn it is about): the user has seen what went wrong. */
export function endsWithErrorNotice(messages: readonly AgentMessage[]): boolean {
  const last = messages[messages.length - 1];
  return last?.role === "localNotice" && last.level === "error";
}
