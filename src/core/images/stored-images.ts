// Images in the transcript: in memory a message carries each image's bytes (base64, as pi-ai
// wants them) and the hash of its blob; on disk the line carries only the hash. A request
// gets the bytes back from the blob, exactly as they were attached.
//   attach:  bytes --ImageBlobStore.put--> sha256, message { type: "image", data, mimeType, blob }
//   save:    externalizeImages  -> { type: "image", data: "", mimeType, blob }
//   request: hydrateImages      -> { type: "image", data: <bytes of the blob>, mimeType, blob }
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ImageContent, TextContent } from "@earendil-works/pi-ai";
import type { ImageBlobSource } from "../transcript/image-blobs";

import type { StoredImageContent } from "../../shared/images";

type ContentBlock = TextContent | ImageContent;

function contentOf(message: AgentMessage): readonly ContentBlock[] | undefined {
  if ((message.role === "user" || message.role === "toolResult") && Array.isArray(message.content)) return message.content as ContentBlock[];
  return undefined;
}

function hasImages(message: AgentMessage): boolean {
  return contentOf(message)?.some((c) => c.type === "image") ?? false;
}

/**
 * The message as it is saved: every image's bytes go to a blob (once) and the line keeps the
 * hash. Messages without images are returned as they are (same object).
 */
export async function externalizeImages(message: AgentMessage, put: (bytes: Uint8Array, mimeType: string) => Promise<string>): Promise<AgentMessage> {
  const content = contentOf(message);
  if (!content || !hasImages(message)) return message;
  const stored: ContentBlock[] = [];
  for (const block of content) {
    if (block.type !== "image") {
      stored.push(block);
      continue;
    }
    const image = block as StoredImageContent;
    const blob = image.blob ?? (await put(Buffer.from(image.data, "base64"), image.mimeType));
    stored.push({ type: "image", data: "", mimeType: image.mimeType, blob } as StoredImageContent);
  }
  return { ...message, content: stored } as AgentMessage;
}

/**
 * The request view with every saved image's bytes read back from its blob. Never mutates its
 * input. An image whose blob is gone becomes a sentence saying so: the model is never sent an
 * empty image, and nothing disappears without a word.
 */
export async function hydrateImages(messages: readonly AgentMessage[], chatId: string, source: ImageBlobSource): Promise<AgentMessage[]> {
  const out: AgentMessage[] = [];
  for (const message of messages) {
    const content = contentOf(message);
    if (!content?.some((c) => c.type === "image" && c.data === "")) {
      out.push(message);
      continue;
    }
    const filled: ContentBlock[] = [];
    for (const block of content) {
      const image = block as StoredImageContent;
      if (block.type !== "image" || image.data !== "") {
        filled.push(block);
        continue;
      }
      const data = image.blob ? await source.readBase64(chatId, image.blob, image.mimeType) : undefined;
      filled.push(
        data !== undefined
          ? ({ type: "image", data, mimeType: image.mimeType, blob: image.blob } as StoredImageContent)
          : { type: "text", text: "[An image was attached here, but its file is missing from this chat's storage.]" },
      );
    }
    out.push({ ...message, content: filled } as AgentMessage);
  }
  return out;
}
