// What a message from the composer is, decided once, before anything runs: one of the chat's
// own actions (`/new`), a `/name` the host looks up as a template or a skill, the user's own
// `!command`, or a prompt. Every composer path (send, Send text only, follow-up, steer) goes
// through this one parser, so no path can skip a step. A template's expansion is never parsed
// again: it is text for the model, never a command (a repository's template starting with `!`
// must not run as the user's command).
import { type ChatActionName, isChatAction } from "../shared/mentions";
import { splitSlashCommand } from "../shared/prompt-templates";
import { parseUserCommand, type UserCommandText } from "./shell/user-command";

export type { ChatActionName };

export type ComposerInput =
  | { readonly kind: "action"; readonly name: ChatActionName; readonly rest: string }
  /** `/name rest` that is not an action: a template or a skill if the library has one of that name. */
  | { readonly kind: "slash"; readonly name: string; readonly rest: string; readonly text: string }
  | { readonly kind: "userCommand"; readonly command: UserCommandText }
  | { readonly kind: "prompt"; readonly text: string };

/**
 * `verbatim`: the text is what the user read in the box after the composer expanded a template:
 * it is sent as it reads, whatever it starts with.
 */
export function parseComposerInput(text: string, verbatim: boolean): ComposerInput {
  if (verbatim) return { kind: "prompt", text };
  const slash = splitSlashCommand(text);
  if (slash) return isChatAction(slash.name) ? { kind: "action", name: slash.name, rest: slash.rest } : { kind: "slash", ...slash, text };
  const command = parseUserCommand(text);
  return command ? { kind: "userCommand", command } : { kind: "prompt", text };
}
