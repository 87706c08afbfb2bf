// The webview's one handle on VS Code: `acquireVsCodeApi()` may be called only once per page.
// `post` is the only way anything leaves the webview; `loadUiState`/`saveUiState` keep local
// UI state (the composer draft) across the view being hidden. UI state never goes to the host.
import { PROTOCOL_VERSION, type WebviewMessage } from "../src/shared/protocol";
import type { MentionRef } from "../src/shared/mentions";

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare global {
  function acquireVsCodeApi(): VsCodeApi;
}

/** What the webview remembers for itself between being hidden and shown again. */
export interface UiState {
  draft: string;
  /** The `@` mentions taken in the draft: their token in the text and what they name. */
  mentions?: { token: string; ref: MentionRef }[];
  /** The empty chat's line of hints was dismissed (it stays so in this view). */
  hintsDismissed?: boolean;
}

let api: VsCodeApi | undefined;

function vscode(): VsCodeApi {
  api ??= acquireVsCodeApi();
  return api;
}

/** The messages the webview sends, without the version field every one of them carries. */
export type Outgoing = WebviewMessage extends infer M ? (M extends WebviewMessage ? Omit<M, "v"> : never) : never;

export function post(message: Outgoing): void {
  vscode().postMessage({ ...message, v: PROTOCOL_VERSION });
}

export function loadUiState(): UiState {
  const raw = vscode().getState();
  const draft = typeof raw === "object" && raw !== null && "draft" in raw ? (raw as { draft: unknown }).draft : undefined;
  const mentions = typeof raw === "object" && raw !== null && "mentions" in raw ? (raw as { mentions: unknown }).mentions : undefined;
  // Saved by this page itself; still only shapes it wrote are taken back.
  const taken = Array.isArray(mentions)
    ? mentions.filter(
        (m): m is { token: string; ref: MentionRef } =>
          typeof m === "object" && m !== null && typeof m.token === "string" && typeof m.ref === "object" && m.ref !== null && typeof m.ref.kind === "string",
      )
    : [];
  const hintsDismissed = typeof raw === "object" && raw !== null && "hintsDismissed" in raw && raw.hintsDismissed === true;
  return { draft: typeof draft === "string" ? draft : "", mentions: taken, ...(hintsDismissed ? { hintsDismissed } : {}) };
}

/** Saves what is given over what was saved (the composer saves its draft, the empty chat its hints). */
export function saveUiState(state: Partial<UiState>): void {
  vscode().setState({ ...loadUiState(), ...state });
}
