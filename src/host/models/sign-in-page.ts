// Which page a provider's sign-in may open in the browser, and how it is named in the modal before
// it opens (src/host/models/provider-sign-in.ts). Pure: unit-tested without VS Code.

/**
 * Whether the flow's page may be opened: https anywhere, http only on this computer (a loopback
 * page). Anything else (command:, file:, vscode:, javascript:) would make "open the sign-in page"
 * run or open something else, so it is refused whatever the flow or the server it asked said.
 */
export function openablePage(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.username || parsed.password) return undefined;
  if (parsed.protocol === "https:") return parsed;
  const loopback = parsed.hostname === "127.0.0.1" || parsed.hostname === "localhost" || parsed.hostname === "[::1]";
  return parsed.protocol === "http:" && loopback ? parsed : undefined;
}

/** "https://auth.openai.com/…": the page named before the browser opens (the query is the flow's own). */
export function pageName(url: URL): string {
  return `${url.origin}/…`;
}
