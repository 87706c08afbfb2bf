// The composer's keys as one table (webview/composer/composer-keys.ts): each row is a key press,
// the state of the box, and the action it means (null: the textarea's own behaviour).
import assert from "node:assert/strict";
import { type ComposerKey, type ComposerKeyAction, type ComposerKeyState, keyAction } from "../../../webview/composer/composer-keys";

const idle: ComposerKeyState = { listOpen: false, hasOptions: false, running: false, mentionBefore: false, mentionAfter: false };
const running: ComposerKeyState = { ...idle, running: true };
const list: ComposerKeyState = { ...idle, listOpen: true, hasOptions: true };
const emptyList: ComposerKeyState = { ...idle, listOpen: true };

const table: [string, ComposerKey, ComposerKeyState, ComposerKeyAction | null][] = [
  ["Enter sends", { key: "Enter" }, idle, "send"],
  ["Shift+Enter is a new line", { key: "Enter", shift: true }, idle, null],
  ["Enter while an input method composes is its own", { key: "Enter", composing: true }, idle, null],
  ["Enter while Pi writes queues a follow-up", { key: "Enter" }, running, "followUp"],
  ["Alt+Enter while Pi writes steers", { key: "Enter", alt: true }, running, "steer"],
  ["Alt+Enter while idle sends", { key: "Enter", alt: true }, idle, "send"],
  ["Escape while Pi writes stops", { key: "Escape" }, running, "stop"],
  ["Escape while idle does nothing", { key: "Escape" }, idle, null],
  ["Escape on the list closes it, and does not stop the run", { key: "Escape" }, { ...list, running: true }, "closeList"],
  ["Escape on an empty list closes it too", { key: "Escape" }, emptyList, "closeList"],
  [
    "Escape while composing on the list, Pi writing: stops (the list is not the composition's)",
    { key: "Escape", composing: true },
    { ...list, running: true },
    "stop",
  ],
  ["Arrow Down on the list: next option", { key: "ArrowDown" }, list, "nextOption"],
  ["Arrow Up on the list: previous option", { key: "ArrowUp" }, list, "previousOption"],
  ["Arrow Down without options moves the caret", { key: "ArrowDown" }, emptyList, null],
  ["Enter on the list takes the option", { key: "Enter" }, { ...list, running: true }, "take"],
  ["Tab on the list takes the option", { key: "Tab" }, list, "take"],
  ["Shift+Tab on the list leaves the box", { key: "Tab", shift: true }, list, null],
  ["Enter on a list without options sends", { key: "Enter" }, emptyList, "send"],
  ["Tab without the list moves the focus", { key: "Tab" }, idle, null],
  ["Backspace right after a mention deletes it whole", { key: "Backspace" }, { ...idle, mentionBefore: true }, "deleteMentionBefore"],
  ["Delete right before a mention deletes it whole", { key: "Delete" }, { ...idle, mentionAfter: true }, "deleteMentionAfter"],
  ["Backspace with a mention only after the caret: ordinary", { key: "Backspace" }, { ...idle, mentionAfter: true }, null],
  ["Ctrl+Backspace after a mention: the textarea's word delete", { key: "Backspace", ctrl: true }, { ...idle, mentionBefore: true }, null],
  ["Alt+Backspace after a mention: ordinary", { key: "Backspace", alt: true }, { ...idle, mentionBefore: true }, null],
  ["Backspace elsewhere: ordinary", { key: "Backspace" }, idle, null],
  ["a letter is typed", { key: "a" }, running, null],
];

describe("composer keys", () => {
  for (const [title, key, state, action] of table) {
    it(`${title} → ${action}`, () => assert.equal(keyAction(key, state), action));
  }
});
