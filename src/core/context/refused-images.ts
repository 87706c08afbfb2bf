// Images a provider refused. An image is sent again with every later request of its chat, so
// one the provider refuses (undecodable, too large, or a model that takes none after all) would
// make every later request fail too. The fact is the refusal itself, as the transcript keeps it:
// an assistant message that ended in an error naming an image. Every request built after it
// carries, in place of each image sent before it, a short text saying so; the transcript keeps
// the images (the view still shows them). An image attached after the refusal is sent: if the
// provider refuses it too, that is a new refusal, and it is left out from then on as well.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ImageContent, TextContent } from "@earendil-works/pi-ai";

/** What the model reads where an image was: it knows there was one, and why it cannot see it. */
export const REFUSED_IMAGE_TEXT =
  "[An image was attached here. The model provider refused an image of this conversation, so the images sent before that are no longer sent.]";

/** What the user is told, once a chat, the first time its provider refuses an image. */
export const IMAGE_REFUSAL_NOTICE =
  "The model provider refused an image in this chat. From now on, this chat's requests send a short note in place of each image sent so far (the chat keeps the images), so you can go on: send your message again. To leave an image out of a message, edit the message.";

/**
 * A provider error about an image: the words providers use ("Invalid image", "image exceeds 5 MB
 * maximum", "Could not process image", "image_url is only supported by certain models",
 * "Unable to process input image").
 */
const IMAGE_ERROR = /\bimages?\b|image_url|image_parse/i;

/** True for an assistant message that ended in a provider error naming an image. */
export function isImageRefusal(message: AgentMessage): boolean {
  return message.role === "assistant" && message.stopReason === "error" && IMAGE_ERROR.test(message.errorMessage ?? "");
}

/**
 * The messages with each image sent before the latest refusal replaced by REFUSED_IMAGE_TEXT.
 * Pure: never mutates its input; without a refusal, returns the same array.
 */
export function withoutRefusedImages(messages: readonly AgentMessage[]): readonly AgentMessage[] {
  let refusedAt = -1;
  for (let i = messages.length - 1; i >= 0 && refusedAt === -1; i--) if (isImageRefusal(messages[i]!)) refusedAt = i;
  if (refusedAt === -1) return messages;
  return messages.map((message, i) => (i < refusedAt ? withoutImages(message) : message));
}

function withoutImages(message: AgentMessage): AgentMessage {
  if ((message.role !== "user" && message.role !== "toolResult") || !Array.isArray(message.content)) return message;
  const content = message.content as (TextContent | ImageContent)[];
  if (!content.some((c) => c.type === "image")) return message;
  const replaced = content.map((c): TextContent | ImageContent => (c.type === "image" ? { type: "text", text: REFUSED_IMAGE_TEXT } : c));
  return { ...message, content: replaced } as AgentMessage;
}
