// piChat.titleFromModel: whether a chat gets a title from its model after the first answer
// (src/core/title-suggestion.ts). "cloud" (the default) asks Anthropic, OpenAI and Google, not an
// OpenAI-compatible server (a local model's time and memory are the user's); "always", "never".
import type { ChatServiceOptions } from "../../core/chat-service";
import { titleFromModelWanted } from "../../core/title-suggestion";
import { settingsForChat } from "./chat-model";
import { readProviderSettings } from "./providers-loader";
import { titleFromModelSetting } from "../settings";

/** The ChatService option: asks per chat, with the chat's own model choice. */
export function modelTitles(saved: (chatId: string, title: string) => void): NonNullable<ChatServiceOptions["titles"]> {
  return {
    wanted: (choice) => titleFromModelWanted(titleFromModelSetting(), settingsForChat(readProviderSettings(), choice).provider),
    saved,
  };
}
