// What a click in rendered markdown does (one delegated handler for every message): a code
// block's buttons (Insert at cursor, Apply to file, Undo, Run in terminal, Copy) and links to
// workspace files; and the host's answer to an Apply to file, drawn into the block.
import { announce } from "../live-region";
import { post } from "../vscode-api";

/**
 * The command a shell block runs. A session transcript (```console, lines `$ cmd` followed by
 * output) runs only its prompted lines, without the prompt; any other block runs as written.
 */
export function shellCommandOf(language: string, code: string): string {
  const lines = code.split("\n");
  const prompted = lines.filter((line) => /^(\$|PS [^>]*>|PS>) /.test(line));
  if (/^(console|shellsession)$/i.test(language) && prompted.length > 0) return prompted.map((line) => line.replace(/^(\$|PS [^>]*>|PS>) /, "")).join("\n");
  return code;
}

function blockLanguage(block: Element | null): string {
  const code = block?.querySelector("pre > code");
  for (const cls of code?.classList ?? []) if (cls.startsWith("language-")) return cls.slice("language-".length);
  return "";
}

/**
 * The code blocks waiting for the host's word on an Apply to file, by the request's number. Held
 * weakly: a block is DOM of its chat, and a strong hold kept a whole chat alive after New Chat
 * (a detached block holds its tree, whose listeners hold the chat's items).
 */
const applying = new Map<number, WeakRef<Element>>();
let applyRequests = 0;

/** A chat switch: the old chat's blocks will get no answer here (their request numbers are the old chat's). */
export function forgetApplyRequests(): void {
  applying.clear();
}

/** The code-block buttons, by class: what each does with its button and its block. */
const CODE_BUTTONS: readonly [selector: string, click: (button: Element, block: Element | null) => void][] = [
  [
    "button.md-insert",
    (_button, block) => {
      // The host puts it in the editor and moves the focus there (or says why it could not).
      const language = block?.querySelector(".md-code-lang")?.textContent ?? "";
      post({ type: "editor/insertCode", code: codeOf(block), ...(language ? { language } : {}) });
    },
  ],
  [
    "button.md-apply",
    (_button, block) => {
      // The host shows the diff and asks before anything is written (src/host/code-blocks/apply-code.ts).
      const path = block?.querySelector(".md-code-path")?.textContent ?? undefined;
      const requestId = ++applyRequests;
      // Blocks scrolled out of the DOM (or re-rendered) have nothing left to show the answer in.
      for (const [id, element] of applying) if (!element.deref()?.isConnected) applying.delete(id);
      if (block) applying.set(requestId, new WeakRef(block));
      post({ type: "editor/applyCode", code: codeOf(block), requestId, ...(path ? { path } : {}) });
    },
  ],
  [
    "button.md-undo",
    (button) => {
      const requestId = Number(button.closest(".md-code-status")?.getAttribute("data-request"));
      if (Number.isInteger(requestId)) post({ type: "editor/undoApply", requestId });
    },
  ],
  [
    "button.md-run",
    (_button, block) => {
      // Model output: the host shows the command and asks before anything runs (src/host/code-blocks/run-in-terminal.ts).
      post({ type: "editor/runInTerminal", command: shellCommandOf(blockLanguage(block), codeOf(block)) });
    },
  ],
  [
    "button.md-copy",
    (button, block) => {
      void navigator.clipboard?.writeText(codeOf(block)).then(
        () => flash(button, "Copied"),
        () => flash(button, "Copy failed"),
      );
    },
  ],
];

function codeOf(block: Element | null): string {
  return block?.querySelector("pre")?.textContent ?? "";
}

/** One click handler for every rendered message (event delegation): file links, code-block buttons. */
export function onMarkdownClick(event: MouseEvent): void {
  const target = event.target instanceof Element ? event.target : null;
  if (!target) return;
  for (const [selector, click] of CODE_BUTTONS) {
    const button = target.closest(selector);
    if (button) {
      click(button, button.closest(".md-code"));
      return;
    }
  }
  const link = target.closest("a");
  if (link) onLinkClick(event, link);
}

function onLinkClick(event: MouseEvent, link: Element): void {
  const path = link.getAttribute("data-path");
  if (path !== null) {
    event.preventDefault();
    const line = Number(link.getAttribute("data-line"));
    post(Number.isInteger(line) && line >= 1 ? { type: "editor/openFile", path, line } : { type: "editor/openFile", path });
    return;
  }
  // http(s)/mailto: VS Code intercepts the navigation and asks before opening it. Anything else: nothing.
  if (!link.hasAttribute("href")) event.preventDefault();
}

/**
 * The host's word on an Apply to file: the block says it was applied (with Undo), or undone. Drawn
 * into the block's DOM, not its HTML: it lasts while the block is on screen.
 */
export function showApplyOutcome(requestId: number, path: string, state: "applied" | "undone"): void {
  const block = applying.get(requestId)?.deref();
  if (!block?.isConnected) return;
  let status = block.querySelector(".md-code-status");
  if (!status) {
    status = document.createElement("div");
    status.className = "md-code-status";
    block.querySelector(".md-code-head")?.after(status);
  }
  status.setAttribute("data-request", String(requestId));
  const text = document.createElement("span");
  text.className = "md-code-status-text";
  if (state === "applied") {
    text.textContent = `Applied to ${path}`;
    const undo = document.createElement("button");
    undo.type = "button";
    undo.className = "md-undo";
    undo.title = `Undo: put ${path} back as it was`;
    undo.textContent = "Undo";
    status.replaceChildren(text, undo);
    announce(`Applied to ${path}`);
  } else {
    applying.delete(requestId);
    text.textContent = `Undid the change to ${path}`;
    status.replaceChildren(text);
    announce(`Undid the change to ${path}`);
  }
}

/** The button says what happened (its name changes with its words) and the live region says it too. */
function flash(button: Element, text: string): void {
  const label = button.querySelector(".md-label") ?? button;
  label.textContent = text;
  announce(text);
  setTimeout(() => (label.textContent = "Copy"), 1500);
}
