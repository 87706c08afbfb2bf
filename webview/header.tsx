// The bar above the chat: the chat's title, the chat's model by its name (the button opens the one
// model picker, VS Code's quick pick) and a slot for the context meter. New chat and History are
// VS Code's view title actions, not repeated here.
import type { ComponentChildren } from "preact";
import type { ViewStatus } from "../src/shared/protocol";
import { ChevronDownIcon } from "./icons";
import { post } from "./vscode-api";

export function Header(props: { title: string; status: ViewStatus; children?: ComponentChildren }) {
  const label = props.status.modelLabel;
  const detail = props.status.modelDetail;
  const where = detail ? ` (${detail})` : "";
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
        title={label ? `${label}${where}: this chat's model. Click to change it (new chats start from the default).` : "Choose a model for this chat"}
        aria-label={label ? `Model: ${label}${where}. Change this chat's model` : "Choose a model"}
        onClick={() => post({ type: "workbench/runCommand", command: "selectChatModel" })}
      >
        <span class="model-label">{label || "Choose model"}</span>
        <ChevronDownIcon />
      </button>
    </header>
  );
}
