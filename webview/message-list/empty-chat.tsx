// What the chat shows before its first message: what Pi can do and a line of hints (dismissed for
// good), or, while no model can answer, the ways to set one up.
import { useState } from "preact/hooks";
import type { ViewStatus, WebviewCommand } from "../../src/shared/protocol";
import { focusComposer } from "../focus";
import { CloseIcon } from "../icons";
import { loadUiState, post, saveUiState } from "../vscode-api";

export function EmptyChat() {
  const [hints, setHints] = useState(() => !loadUiState().hintsDismissed);
  return (
    <div class="empty">
      <div class="empty-title">Ask Pi about your code</div>
      <div class="empty-hint">Pi can read files in this workspace and propose edits. Every edit is shown as a diff and applied only when you allow it.</div>
      {hints && (
        <div class="empty-tips" role="note" aria-label="Hints">
          <span>
            <kbd>@</kbd> a file, folder, problems or selection · <kbd>/</kbd> commands and templates (<kbd>/help</kbd>) · <kbd>!command</kbd> runs it yourself ·{" "}
            <em>Restore files to here</em> on a message undoes Pi's edits · the meter above shows the model's context.
          </span>
          <button
            type="button"
            class="icon-button empty-tips-close"
            aria-label="Dismiss hints"
            title="Dismiss hints"
            onClick={() => {
              saveUiState({ hintsDismissed: true });
              setHints(false);
              focusComposer();
            }}
          >
            <CloseIcon />
          </button>
        </div>
      )}
    </div>
  );
}

/** What the empty chat says while no model can answer: nothing is set up yet, and the ways to set one up. */
const SETUP_WORDS: Record<NonNullable<ViewStatus["setup"]>, { title: string; hint: string }> = {
  noKey: {
    title: "Set up a model to start",
    hint: "Pi Chat needs a sign-in (ChatGPT, OpenRouter, xAI…) or an API key for a provider (Anthropic, OpenAI, Google…), or a model running on your machine. Nothing is set up yet.",
  },
  noServer: {
    title: "Set up your local server",
    hint: "Pi Chat is set to use a local, OpenAI-compatible server, but no base URL is set.",
  },
};

/** `vscodeModels`: VS Code has language models (Copilot's, another extension's): offered first, no key needed. */
export function SetUpAModel({ setup, vscodeModels = false }: { setup: NonNullable<ViewStatus["setup"]>; vscodeModels?: boolean }) {
  const words = SETUP_WORDS[setup];
  const run = (command: WebviewCommand) => post({ type: "workbench/runCommand", command });
  return (
    <section class="empty empty-setup" aria-label="Set up a model">
      <h2 class="empty-title">{words.title}</h2>
      <div class="empty-hint">{words.hint}</div>
      {vscodeModels && (
        <div class="empty-hint">
          VS Code already has language models (GitHub Copilot's, or another extension's): no key needed. VS Code asks whether Pi Chat may use these models the
          first time.
        </div>
      )}
      <div class="setup-actions">
        {vscodeModels && (
          <button type="button" class="button primary" onClick={() => run("useVscodeModels")}>
            Use the models VS Code already has
          </button>
        )}
        <button type="button" class={vscodeModels ? "button secondary" : "button primary"} onClick={() => run("selectChatModel")}>
          Choose provider and model
        </button>
        {/* The first ten minutes: VS Code's models, then a sign-in (no key to find), then a key, then a local server. */}
        <button type="button" class="button secondary" onClick={() => run("signIn")}>
          Sign in to a provider
        </button>
        <button type="button" class="button secondary" onClick={() => run("setApiKey")}>
          Set API key
        </button>
        <button type="button" class="button secondary" onClick={() => run("useLocalModel")}>
          Use a local model
        </button>
        <button type="button" class="button secondary" onClick={() => run("openWalkthrough")}>
          Get started: walkthrough
        </button>
      </div>
    </section>
  );
}
