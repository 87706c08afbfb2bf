// Images in messages, as both sides see them. In memory an image block carries its bytes and
// the hash of the blob they were saved to; the webview never needs the bytes (it shows the
// blob file), so they are left out of what is posted to it.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ImageContent, TextContent } from "@earendil-works/pi-ai";

/** An image content block that knows its blob (the SHA-256 of its bytes, hex). */
export interface StoredImageContent extends ImageContent {
  blob?: string;
}

/** What the view shows of an attached image: its blob file. */
export interface ImageRef {
  blob: string;
  mimeType: string;
}

type ContentBlock = TextContent | ImageContent;

function contentOf(message: AgentMessage): readonly ContentBlock[] | undefined {
  if ((message.role === "user" || message.role === "toolResult") && Array.isArray(message.content)) return message.content as ContentBlock[];
  return undefined;
}

/** The images of a message that have a blob, for the view. */
export function imageRefs(message: AgentMessage): ImageRef[] {
  const refs: ImageRef[] = [];
  for (const block of contentOf(message) ?? []) {
    const blob = (block as StoredImageContent).blob;
    if (block.type === "image" && typeof blob === "string" && /^[0-9a-f]{64}$/.test(blob)) refs.push({ blob, mimeType: block.mimeType });
  }
  return refs;
}

/** The message without image bytes. The same object when it has none. */
export function withoutImageData<M extends AgentMessage>(message: M): M {
  const content = contentOf(message);
  if (!content?.some((c) => c.type === "image" && c.data !== "")) return message;
  return { ...message, content: content.map((c) => (c.type === "image" ? { ...c, data: "" } : c)) } as M;
}
