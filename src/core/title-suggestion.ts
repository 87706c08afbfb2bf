// A chat's title from its model, after the first answer: one short request to the same model
// (the first prompt and the answer, cut short; no tools, a few tokens of answer), its reply redacted,
// then cleaned to one line of a few words and cut to TITLE_SUGGESTION_MAX_CHARS. The caller saves it as
// a title line appended to the chat, unless the user named the chat meanwhile. Nothing here may
// block or fail the chat: the caller runs it in the background and only logs a failure.
import { writeSummary, type SummaryModel } from "./context/compactor";

export const TITLE_SUGGESTION_MAX_CHARS = 60;
/** Of the prompt and of the answer: enough to know what the chat is about. */
const EXCERPT_CHARS = 1500;
/** Room for a short title (and a reasoning model's first words); the reply is cut anyway. */
const TITLE_MAX_TOKENS = 60;

/** `piChat.titleFromModel`: "cloud" asks hosted providers only (a local server's time is the user's). */
export type TitleFromModel = "cloud" | "always" | "never";

export function titleFromModelWanted(setting: TitleFromModel, provider: string): boolean {
  if (setting === "always") return true;
  if (setting === "never") return false;
  // "cloud": the key providers only. Not a local server, nor VS Code's models ("vscode-lm"), whose
  // every request may count against the user's plan with the extension that provides them.
  return provider !== "openai-compatible" && provider !== "vscode-lm";
}

const SYSTEM_PROMPT =
  "You name chats for a list of past chats. Reply with the title only: 2 to 6 words saying what the user wants, " +
  "in the user's language, no quotes, no trailing punctuation, no preamble.";

/** The model's reply as it came (the caller redacts it, then cleans and cuts it with cleanTitle). */
export async function suggestTitle(model: SummaryModel, prompt: string, answer: string, signal?: AbortSignal): Promise<string> {
  const request = {
    systemPrompt: SYSTEM_PROMPT,
    prompt: `The user wrote:\n${excerpt(prompt)}\n\nThe assistant answered:\n${excerpt(answer)}\n\nTitle:`,
    maxTokens: TITLE_MAX_TOKENS,
  };
  const { text } = await writeSummary(model, request, signal);
  return text;
}

/** One line of plain words from whatever the model wrote; undefined when nothing usable is left. */
export function cleanTitle(raw: string): string | undefined {
  const line =
    raw
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== "") ?? "";
  let title = line
    // Markdown emphasis, code and heading marks (not "_": file and function names keep theirs).
    .replace(/[*`#]/g, "")
    .trim()
    .replace(/^title\s*:\s*/i, "")
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .replace(/\s+/g, " ")
    // Quotes around it and punctuation after it, in any order ("Title." or “Title”.).
    .replace(/^["'“”‘’«»\s]+/u, "")
    .replace(/["'“”‘’«».!。:;,\s]+$/u, "");
  if (title === "") return undefined;
  const chars = Array.from(title);
  if (chars.length > TITLE_SUGGESTION_MAX_CHARS) {
    const cut = chars.slice(0, TITLE_SUGGESTION_MAX_CHARS).join("");
    const space = cut.lastIndexOf(" ");
    title = `${space > TITLE_SUGGESTION_MAX_CHARS / 2 ? cut.slice(0, space) : cut}…`;
  }
  return title;
}

function excerpt(text: string): string {
  const chars = Array.from(text.trim());
  return chars.length <= EXCERPT_CHARS ? chars.join("") : `${chars.slice(0, EXCERPT_CHARS).join("")}…`;
}
