// The webview's HTML, in one place: the extension host serves it, and the browser tests and
// the render benchmark serve the very same page (same CSP, same structure) from a local server.

export interface WebviewPageOptions {
  /** Origin the page may load styles, fonts and images from (the webview's `cspSource`). */
  cspSource: string;
  /** Fresh per page; only scripts carrying it run. */
  nonce: string;
  styles: readonly string[];
  /** Loaded in order, each with the nonce. */
  scripts: readonly string[];
  /** A nonce'd inline script before the others (test pages define `acquireVsCodeApi` with it). */
  inlineScript?: string;
  /** Attributes of <body>, e.g. `class="vscode-dark" data-test="1"`. */
  bodyAttributes?: string;
  title?: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `style-src ${cspSource}`, `font-src ${cspSource}`, `img-src ${cspSource} data:`, `script-src 'nonce-${nonce}'`].join("; ");
}

export function webviewHtml(o: WebviewPageOptions): string {
  const attr = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const nonce = attr(o.nonce);
  const styles = o.styles.map((href) => `<link rel="stylesheet" href="${attr(href)}">`).join("\n");
  const inline = o.inlineScript !== undefined ? `<script nonce="${nonce}">${o.inlineScript.replace(/<\/script/gi, "<\\/script")}</script>\n` : "";
  const scripts = o.scripts.map((src) => `<script nonce="${nonce}" src="${attr(src)}"></script>`).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}
<title>${attr(o.title ?? "Pi Chat")}</title>
</head>
<body${o.bodyAttributes ? ` ${o.bodyAttributes}` : ""}>
<div id="root"></div>
${inline}${scripts}
</body>
</html>`;
}
