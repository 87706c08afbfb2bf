// Entry of the webview bundle (out/webview.js, with out/webview.css from the import below).
// Wires the protocol client to window messages and renders the app. No inline script or style
// is ever needed: the host page's CSP allows only this nonce'd script and the stylesheet.
import { render } from "preact";
import "@vscode/codicons/dist/codicon.css";
import "./styles.css";
import "./high-contrast.css";
import { App } from "./app";
import { ChatClient, itemCount } from "./client";
import { renderedSeq } from "./frame-pacing";
import { highlightCodeBlocks, highlightingSettled } from "./code-highlight";
import { keepFocus } from "./focus";
import { showApplyOutcome } from "./markdown/code-block-clicks";
import { markdownWork } from "./markdown/markdown";
import { post } from "./vscode-api";

declare global {
  interface Window {
    /** Only on the test page (body data-test="1"): hooks for browser tests and benchmarks. */
    __piChatTest?: {
      lastSeq(): number;
      renderedSeq(): number;
      commits(): number;
      itemCount(): number;
      markdownWork(): number;
      markdownMs(): number;
      markdownInlineWork(): number;
      highlightingSettled(): boolean;
    };
  }
}

const client = new ChatClient(post);
client.codeApplied = showApplyOutcome;
window.addEventListener("message", (event: MessageEvent) => client.receive(event.data));

if (document.body.dataset.test === "1") {
  window.__piChatTest = {
    lastSeq: () => client.lastSeq,
    renderedSeq: () => renderedSeq.value,
    commits: () => renderedSeq.commits,
    itemCount: () => itemCount(client.model.chat),
    markdownWork: () => markdownWork.chars,
    markdownMs: () => markdownWork.ms,
    markdownInlineWork: () => markdownWork.inline,
    highlightingSettled,
  };
}

let root = document.getElementById("root");
if (!root) {
  root = document.createElement("div");
  root.id = "root";
  document.body.appendChild(root);
}
highlightCodeBlocks(root);
render(<App client={client} />, root);
keepFocus();
client.start();
