// Messages from the composer: the `@` and `/` lists, dropped and pasted paths, a template's
// expansion, attachments, and the queue while a reply runs.
import { loadProviders } from "../models/providers-loader";
import type { HandlerGroup } from "./deps";

export const composerHandlers = {
  "mention/query": async (message, { lists, view }) => {
    const found = await lists.mentions.options(message.query);
    view.send({ type: "mention/results", requestId: message.requestId, ...found });
  },
  // Dropped files and a pasted path: what exists in the workspace folders becomes a mention.
  "mention/paths": async (message, { lists, view }) => {
    const found = await lists.mentions.resolvePaths(message.items);
    view.send({ type: "mention/pathsResolved", requestId: message.requestId, origin: message.origin, ...found });
  },
  "composer/listCommands": (_message, { lists }) => lists.sendCommandList(),
  // Enter on `/template args`: the expansion, for the user to read before sending.
  "composer/expandTemplate": async (message, { lists, view }) => {
    const expanded = await lists.expandDraft(message.text);
    view.send({ type: "composer/expanded", requestId: message.requestId, ...(expanded ?? {}) });
  },
  "composer/checkImageInput": (_message, { status }) => {
    // Images were attached: the bundle is about to be needed anyway, and the composer must
    // say before sending whether the model can see them.
    loadProviders();
    status.send();
  },
  "composer/removeAttachment": (message, { attachments }) => attachments.remove(message.index),
  "queue/add": (message, { input }) => input.queueInput(message.kind, message.text, message.images ?? [], message.mentions ?? [], message.verbatim === true),
  "queue/remove": (message, { screen }) => screen.currentSession.unqueue(message.id),
  "queue/sendNow": async (_message, { screen }) => {
    await screen.writeCurrentChat(screen.currentChatId);
    return screen.currentSession.sendQueued();
  },
  "queue/clear": (_message, { screen }) => screen.currentSession.clearQueue(),
} satisfies HandlerGroup;
