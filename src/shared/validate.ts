// Validation of what the webview sends. The webview renders model output, so it is treated
// as untrusted: every message is checked against a closed schema before the host acts on it.
import { arr, bool, compile, int, lit, obj, oneOf, opt, str, union, type Static } from "@earendil-works/pi-schema";
import type { StructuredDiff } from "./structured-diff";
import { MAX_MENTIONS } from "./mentions";
import { MAX_EDIT_HUNKS, MAX_EDITED_HUNK_CHARS } from "./partial-patch";
import { MAX_PROMPT_IMAGE_BYTES, MAX_PROMPT_IMAGES, PROTOCOL_VERSION, WEBVIEW_COMMANDS, type WebviewMessage } from "./protocol";

const v = lit(PROTOCOL_VERSION);
const id = str({ minLength: 1, maxLength: 200 });

// Pasted images of a prompt or a queued follow-up (base64; the host checks the decoded bytes).
const promptImages = opt(
  arr(obj({ mimeType: str({ minLength: 1, maxLength: 100 }), data: str({ minLength: 1, maxLength: Math.ceil(MAX_PROMPT_IMAGE_BYTES / 3) * 4 }) }), {
    maxItems: MAX_PROMPT_IMAGES,
  }),
);

// Mentions taken in the composer: only names; the host reads (and checks) what they name at send time.
const mentionPath = str({ minLength: 1, maxLength: 4096 });
const mentions = opt(
  arr(
    union([
      obj({ kind: oneOf(["file", "folder"]), path: mentionPath }),
      obj({ kind: lit("problems"), path: opt(mentionPath) }),
      obj({ kind: oneOf(["selection", "changes", "terminal"]) }),
    ]),
    { maxItems: MAX_MENTIONS },
  ),
);

const webviewMessageSchema = union([
  obj({ type: lit("view/ready"), v }),
  obj({ type: lit("view/resync"), v, lastSeq: int({ minimum: -1 }) }),
  obj({
    type: lit("chat/send"),
    v,
    // Empty only with images (the host checks): a screenshot can be the whole question.
    text: str({ maxLength: 200_000 }),
    images: promptImages,
    mentions,
    verbatim: opt(bool()),
  }),
  obj({ type: lit("mention/query"), v, requestId: int({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), query: str({ maxLength: 500 }) }),
  obj({
    type: lit("mention/paths"),
    v,
    requestId: int({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    origin: oneOf(["drop", "paste"]),
    // The host takes the first MAX_MENTIONS and says so; a longer list is not a drop of files.
    items: arr(str({ minLength: 1, maxLength: 8192 }), { maxItems: 1000 }),
  }),
  obj({ type: lit("composer/expandTemplate"), v, requestId: int({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), text: str({ maxLength: 200_000 }) }),
  obj({ type: lit("composer/listCommands"), v }),
  obj({ type: lit("composer/checkImageInput"), v }),
  obj({ type: lit("chat/stop"), v }),
  obj({ type: lit("chat/continue"), v }),
  obj({ type: lit("chat/loadEarlier"), v, count: opt(int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })) }),
  obj({
    type: lit("approval/decide"),
    v,
    toolCallId: id,
    decision: oneOf(["allow", "deny", "allowForChat", "allowAlways"]),
    reason: opt(str({ maxLength: 2000 })),
    rule: opt(str({ minLength: 1, maxLength: 500 })),
    // The host checks each index against the edit waiting under toolCallId (partial-patch.ts).
    rejectedHunks: opt(arr(int({ minimum: 0, maximum: MAX_EDIT_HUNKS - 1 }), { maxItems: MAX_EDIT_HUNKS })),
    editedHunks: opt(arr(int({ minimum: 0, maximum: MAX_EDIT_HUNKS - 1 }), { maxItems: MAX_EDIT_HUNKS })),
  }),
  obj({
    type: lit("approval/editHunk"),
    v,
    toolCallId: id,
    hunk: int({ minimum: 0, maximum: MAX_EDIT_HUNKS - 1 }),
    text: union([str({ maxLength: MAX_EDITED_HUNK_CHARS }), lit(null)]),
  }),
  obj({ type: lit("approval/hunk"), v, toolCallId: id, hunk: int({ minimum: 0, maximum: MAX_EDIT_HUNKS - 1 }), accept: bool() }),
  obj({ type: lit("command/openOutput"), v, toolCallId: id }),
  obj({ type: lit("command/stopBackground"), v, id }),
  obj({ type: lit("chat/new"), v }),
  obj({ type: lit("chat/switch"), v, chatId: id }),
  obj({ type: lit("chat/delete"), v, chatId: id }),
  obj({ type: lit("history/undoDelete"), v, chatId: id }),
  obj({ type: lit("history/search"), v, query: str({ minLength: 1, maxLength: 500 }) }),
  obj({ type: lit("history/rename"), v, chatId: id, title: str({ maxLength: 200 }) }),
  obj({ type: lit("history/export"), v, chatId: id }),
  obj({ type: lit("history/continueInPi"), v, chatId: id }),
  obj({ type: lit("composer/removeAttachment"), v, index: int({ minimum: 0, maximum: 1000 }) }),
  obj({ type: lit("editor/openFile"), v, path: str({ minLength: 1, maxLength: 4096 }), line: opt(int({ minimum: 1 })) }),
  obj({ type: lit("editor/openDiff"), v, toolCallId: id }),
  obj({ type: lit("editor/insertCode"), v, code: str({ maxLength: 1_000_000 }), language: opt(str({ maxLength: 64 })) }),
  obj({
    type: lit("editor/applyCode"),
    v,
    code: str({ maxLength: 1_000_000 }),
    path: opt(str({ minLength: 1, maxLength: 4096 })),
    requestId: opt(int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  }),
  obj({ type: lit("editor/undoApply"), v, requestId: int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
  // One command line or a short script: anything longer is not a command a user reads before running.
  obj({ type: lit("editor/runInTerminal"), v, command: str({ minLength: 1, maxLength: 20_000 }) }),
  obj({ type: lit("workbench/runCommand"), v, command: oneOf(WEBVIEW_COMMANDS) }),
  obj({
    type: lit("branch/editPrompt"),
    v,
    messageIndex: int({ minimum: 0, maximum: 10_000_000 }),
    text: str({ minLength: 1, maxLength: 200_000 }),
    removeImages: opt(arr(int({ minimum: 0, maximum: 1000 }), { maxItems: 1000 })),
  }),
  obj({
    type: lit("queue/add"),
    v,
    kind: oneOf(["followUp", "steer"]),
    // Empty only with images, as a prompt.
    text: str({ maxLength: 200_000 }),
    images: promptImages,
    mentions,
    verbatim: opt(bool()),
  }),
  obj({ type: lit("queue/remove"), v, id }),
  obj({ type: lit("queue/sendNow"), v }),
  obj({ type: lit("queue/clear"), v }),
  obj({ type: lit("chat/setMode"), v, mode: oneOf(["plan", "act"]) }),
  obj({ type: lit("plan/approve"), v, toolCallId: id }),
  obj({
    type: lit("plan/revise"),
    v,
    toolCallId: id,
    comments: arr(obj({ line: int({ minimum: 1, maximum: 100_000 }), comment: str({ minLength: 1, maxLength: 4_000 }) }), { maxItems: 200 }),
  }),
  obj({ type: lit("plan/openInEditor"), v, toolCallId: id }),
  obj({
    type: lit("tasks/edit"),
    v,
    items: arr(obj({ id: str({ minLength: 1, maxLength: 20 }), state: oneOf(["pending", "in_progress", "done", "blocked"]) }), { maxItems: 30 }),
  }),
  obj({ type: lit("branch/retry"), v, messageIndex: int({ minimum: 0, maximum: 10_000_000 }) }),
  obj({ type: lit("checkpoint/restore"), v, messageIndex: int({ minimum: 0, maximum: 10_000_000 }) }),
  obj({ type: lit("checkpoint/redo"), v, messageIndex: int({ minimum: 0, maximum: 10_000_000 }) }),
  obj({ type: lit("checkpoint/answer"), v, id: int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), choice: oneOf(["restore", "keep", "cancel"]) }),
  obj({ type: lit("checkpoint/openDiff"), v, id: int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), path: str({ minLength: 1, maxLength: 4096 }) }),
  obj({ type: lit("pending/decide"), v, action: oneOf(["keep", "undo"]), path: opt(str({ minLength: 1, maxLength: 4096 })) }),
  obj({ type: lit("pending/open"), v, path: str({ minLength: 1, maxLength: 4096 }) }),
  obj({ type: lit("pending/since"), v, markId: opt(str({ minLength: 1, maxLength: 200 })) }),
  obj({ type: lit("branch/switch"), v, messageIndex: int({ minimum: 0, maximum: 10_000_000 }), to: int({ minimum: 0, maximum: 100_000 }) }),
]);

// Keep the schema and the hand-written union in step: this fails to compile if they drift.
type SchemaMessage = Static<typeof webviewMessageSchema>;
const _schemaMatchesType: (m: SchemaMessage) => WebviewMessage = (m) => m;
const _typeMatchesSchema: (m: WebviewMessage) => SchemaMessage = (m) => m;
void _schemaMatchesType;
void _typeMatchesSchema;

const validator = compile(webviewMessageSchema);

// An edit's diff as the host posts it (src/shared/structured-diff.ts). The host→webview direction
// is trusted and not checked at run time; this schema keeps the shared type exact (checked both
// ways below) and is what the tests hold the builders' output to. No webview message has a field
// for it: the closed schema above refuses a diff the webview tries to hand back.
const count = int({ minimum: 0 });
const diffHunkSchema = obj({ oldStart: count, oldLines: count, newStart: count, newLines: count, lines: arr(str()) });
const structuredDiffSchema = union([obj({ kind: lit("hunks"), hunks: arr(diffHunkSchema) }), obj({ kind: lit("secret"), changedLines: count })]);

type SchemaDiff = Static<typeof structuredDiffSchema>;
const _schemaMatchesDiff: (d: SchemaDiff) => StructuredDiff = (d) => d;
const _diffMatchesSchema: (d: StructuredDiff) => SchemaDiff = (d) => d;
void _schemaMatchesDiff;
void _diffMatchesSchema;

/** Whether `value` is a well-formed StructuredDiff (exactly: no other fields). */
export const isStructuredDiff: (value: unknown) => value is StructuredDiff = compile(structuredDiffSchema).check;

export type ParsedWebviewMessage = { ok: true; message: WebviewMessage } | { ok: false; error: string };

/** Never throws: anything that is not a well-formed message of this protocol version is an error result. */
export function parseWebviewMessage(raw: unknown): ParsedWebviewMessage {
  try {
    const result = validator.validate(raw);
    if (result.ok) return { ok: true, message: result.value };
    const type = typeof raw === "object" && raw !== null && "type" in raw ? String((raw as { type: unknown }).type).slice(0, 40) : typeof raw;
    const first = result.errors[0];
    return { ok: false, error: `invalid webview message (${type}): ${first ? `${first.path || "/"} ${first.message}` : "rejected"}` };
  } catch (error) {
    return { ok: false, error: `invalid webview message: ${error instanceof Error ? error.message : String(error)}` };
  }
}
