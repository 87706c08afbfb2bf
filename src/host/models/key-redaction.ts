// The one redactor of the extension: every API key Pi Chat reads (secret storage, the
// environment) or sends is added to it, and the Output channel, the notifications, the
// transcript and the webview all go through it (src/core/redaction.ts says how).
import { SecretRedactor } from "../../core/redaction";
import { ENV_VARS, PROVIDER_IDS } from "../providers/catalog";

export const keyRedactor = new SecretRedactor();

/** The keys in the environment variables Pi Chat reads, known before any is used. */
export function addEnvironmentKeys(env: Readonly<Record<string, string | undefined>> = process.env): void {
  for (const provider of PROVIDER_IDS) for (const name of ENV_VARS[provider]) keyRedactor.add(env[name]);
}

export function redact(text: string): string {
  return keyRedactor.text(text);
}
