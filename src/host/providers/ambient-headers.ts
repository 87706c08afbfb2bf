// What an SDK under pi-ai sends of the extension host's environment by itself: the OpenAI SDK adds
// OPENAI_ORG_ID and OPENAI_PROJECT_ID as headers to every server it talks to (Groq, xAI, a local
// server…), which names your OpenAI account to them. A request to anyone but OpenAI goes with
// those headers set to null, which the SDK drops: nothing ambient leaves with another provider's request.
import type { SimpleStreamOptions } from "@earendil-works/pi-ai";

/** The headers the OpenAI SDK fills from the environment (null removes them). */
const AMBIENT_OPENAI_HEADERS: Readonly<Record<string, null>> = { "OpenAI-Organization": null, "OpenAI-Project": null };

/** The request's options without the ambient OpenAI headers, unless the request is OpenAI's own. */
export function withoutAmbientHeaders<T extends SimpleStreamOptions>(provider: string, options: T | undefined): T | undefined {
  if (provider === "openai") return options;
  // pi-ai passes headers through to the SDK as given; the SDK treats a null header as "remove".
  const headers = { ...(options?.headers ?? {}), ...AMBIENT_OPENAI_HEADERS } as unknown as Record<string, string>;
  return { ...(options ?? ({} as T)), headers };
}

/** A request's options: no ambient OpenAI headers (above), and the provider's URL parts as its env (provider-options.ts). */
export function requestOptions<T extends SimpleStreamOptions>(
  provider: string,
  options: T | undefined,
  env: Record<string, string> | undefined,
): T | undefined {
  const cleaned = withoutAmbientHeaders(provider, options);
  return env ? ({ ...(cleaned ?? ({} as T)), env: { ...(cleaned?.env ?? {}), ...env } } as T) : cleaned;
}
