// Secrets out of command output: the key of the model in use is replaced wherever it appears.

/** Shorter strings are not treated as secrets: replacing them would garble ordinary output. */
const MIN_SECRET_LENGTH = 8;

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (out.includes(secret)) out = out.split(secret).join("[redacted API key]");
  }
  return out;
}
