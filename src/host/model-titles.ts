// piChat.titleFromModel: whether a chat gets a title from its model after the first answer
// (src/core/title-suggestion.ts). "cloud" (the default) asks Anthropic, OpenAI and Google, not an
// OpenAI-compatible server (a local model's time and memory are the user's); "always", "never".
import * as vscode from "vscode";
import type { ChatServiceOptions } from "../core/chat-service";
import { titleFromModelWanted, type TitleFromModel } from "../core/title-suggestion";
import { settingsForChat } from "./chat-model";
import { readProviderSettings } from "./providers-loader";

export function titleFromModelSetting(): TitleFromModel {
  const value = vscode.workspace.getConfiguration("piChat").get<string>("titleFromModel");
  return value === "always" || value === "never" ? value : "cloud";
}

/** The ChatService option: asks per chat, with the chat's own model choice. */
export function modelTitles(saved: (chatId: string, title: string) => void): NonNullable<ChatServiceOptions["titles"]> {
  return {
    wanted: (choice) => titleFromModelWanted(titleFromModelSetting(), settingsForChat(readProviderSettings(), choice).provider),
    saved,
  };
}
