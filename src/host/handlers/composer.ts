// Messages from the composer: the `@` and `/` lists, dropped and pasted paths, a template's
// expansion, attachments, and the queue while a reply runs.
import { loadProviders } from "../models/providers-loader";
import type { HandlerGroup } from "./context";

export const composerHandlers = {
  "mention/query": async (message, ctx) => {
    const found = await ctx.mentions.options(message.query);
    ctx.send({ type: "mention/results", requestId: message.requestId, ...found });
  },
  // Dropped files and a pasted path: what exists in the workspace folders becomes a mention.
  "mention/paths": async (message, ctx) => {
    const found = await ctx.mentions.resolvePaths(message.items);
    ctx.send({ type: "mention/pathsResolved", requestId: message.requestId, origin: message.origin, ...found });
  },
  "composer/listCommands": (_message, ctx) => ctx.sendCommandList(),
  // Enter on `/template args`: the expansion, for the user to read before sending.
  "composer/expandTemplate": async (message, ctx) => {
    const expanded = await ctx.expandDraft(message.text);
    ctx.send({ type: "composer/expanded", requestId: message.requestId, ...(expanded ?? {}) });
  },
  "composer/checkImageInput": (_message, ctx) => {
    // Images were attached: the bundle is about to be needed anyway, and the composer must
    // say before sending whether the model can see them.
    loadProviders();
    ctx.send({ type: "view/status", status: ctx.status() });
  },
  "composer/removeAttachment": (message, ctx) => {
    ctx.attachments = ctx.attachments.filter((_, i) => i !== message.index);
    ctx.send({ type: "composer/attachments", attachments: ctx.attachments });
  },
  "queue/add": (message, ctx) => ctx.queueInput(message.kind, message.text, message.images ?? [], message.mentions ?? [], message.verbatim === true),
  "queue/remove": (message, ctx) => ctx.session.unqueue(message.id),
  "queue/sendNow": async (_message, ctx) => {
    await ctx.writeCurrentChat(ctx.session.id);
    return ctx.session.sendQueued();
  },
  "queue/clear": (_message, ctx) => ctx.session.clearQueue(),
} satisfies HandlerGroup;
