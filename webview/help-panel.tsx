// `/help`: what the chat understands, in one closable panel above the composer: the `/` commands
// (the chat's actions, then the templates and skills the host listed), what `@` can mention, and
// the keys. Focus goes to it when it opens and back to the composer when it closes (Escape or
// Close); opening it is announced.
import { useEffect, useRef } from "preact/hooks";
import { ACTION_COMMANDS, SPECIAL_MENTIONS, type SlashCommand } from "../src/shared/mentions";
import { focusComposer } from "./focus";
import { CloseIcon } from "./icons";
import { announce } from "./live-region";

/** The keys of the chat view (docs/accessibility.md has the full table). */
const KEYS: readonly [string, string][] = [
  ["Enter / Shift+Enter", "send / new line"],
  ["Escape", "stop the answer"],
  ["Alt+A / Alt+D", "allow / deny the edit waiting"],
  ["Alt+Shift+A", "go to the edit waiting"],
  ["Ctrl+Alt+'", "the message box, from anywhere in VS Code"],
];

export function HelpPanel({ commands, onClose }: { commands: readonly SlashCommand[] | undefined; onClose: () => void }) {
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    panel.current?.focus();
    announce("Help: commands, mentions and keys. Escape closes it.");
  }, []);
  const close = () => {
    onClose();
    focusComposer();
  };
  const others = (commands ?? []).filter((c) => c.kind !== "action");
  return (
    <section
      ref={panel}
      class="help-panel"
      aria-label="Help"
      tabIndex={-1}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          close();
        }
      }}
    >
      <div class="help-head">
        <strong>Help</strong>
        <span class="grow" />
        <button type="button" class="icon-button" aria-label="Close help" title="Close help" onClick={close}>
          <CloseIcon />
        </button>
      </div>
      <h3>Commands (type /)</h3>
      <ul>
        {[...ACTION_COMMANDS, ...others].map((c) => (
          <li key={c.name}>
            <code>/{c.name}</code> {c.description}
          </li>
        ))}
        <li>
          <code>!command</code> runs a command yourself, and Pi sees its output; <code>!!command</code> keeps the output from Pi
        </li>
      </ul>
      <h3>Mentions (type @)</h3>
      <ul>
        <li>
          <code>@file</code>, <code>@folder/</code> a file or folder of the workspace
        </li>
        {SPECIAL_MENTIONS.map((m) => (
          <li key={m.kind}>
            <code>@{m.kind}</code> {m.detail}
          </li>
        ))}
      </ul>
      <h3>Keys</h3>
      <ul>
        {KEYS.map(([key, does]) => (
          <li key={key}>
            <kbd>{key}</kbd> {does}
          </li>
        ))}
      </ul>
    </section>
  );
}
