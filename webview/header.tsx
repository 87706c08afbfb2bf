// The bar above the chat: the chat's title, the chat's model (VS Code's quick pick chooses it) and a
// slot for the context meter. New chat and History are VS Code's view title actions, not
// repeated here.
import type { ComponentChildren } from "preact";
import type { ViewStatus } from "../src/shared/protocol";
import { ChevronDownIcon } from "./icons";
import { post } from "./vscode";

export function Header(props: { title: string; status: ViewStatus; children?: ComponentChildren }) {
  const label = props.status.modelLabel;
  // "provider / model": in a narrow sidebar the provider is hidden (styles.css), so what is left
  // is the model's name, not the first letters of the provider's.
  const split = /^(.+?\s*\/\s*)(.+)$/.exec(label);
  return (
    <header class="header">
      <h1 class="header-title" title={props.title || "New chat"}>
        {props.title || "New chat"}
      </h1>
      {/* The context meter goes here. */}
      <div class="header-meter">{props.children}</div>
      <button
        type="button"
        class="model-button"
        title={label ? `${label}: model for this chat (saved with the chat; new chats start from the settings)` : "Select a model for this chat"}
        aria-label={label ? `Model: ${label}. Change this chat's model` : "Select a model"}
        onClick={() => post({ type: "workbench/runCommand", command: "selectChatModel" })}
      >
        <span class="model-label">
          {split ? (
            <>
              <span class="model-provider">{split[1]}</span>
              {split[2]}
            </>
          ) : (
            label || "Select model"
          )}
        </span>
        <ChevronDownIcon />
      </button>
    </header>
  );
}
