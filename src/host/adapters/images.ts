// Images the user attached in the composer: checked by their bytes, refused with the reason
// when the model cannot see images (never dropped silently), and kept beside the chat once.
import { acceptAttachedImage } from "../../core/images/accept";
import type { ChatService } from "../../core/chat-service";
import type { StoredImageContent } from "../../shared/images";
import { MAX_PROMPT_IMAGES, type PromptImage, type ViewStatus } from "../../shared/protocol";
import { readProviderSettings } from "../models/providers-loader";

/** Thrown to the view (shown as an error message): the prompt was not sent, the composer keeps it. */
export async function attachImages(
  service: ChatService,
  chatId: string,
  images: readonly PromptImage[],
  acceptsImages: () => boolean | undefined,
): Promise<StoredImageContent[]> {
  if (images.length === 0) return [];
  if (images.length > MAX_PROMPT_IMAGES) throw new Error(`At most ${MAX_PROMPT_IMAGES} images can go with one message; nothing was sent.`);
  if (acceptsImages() === false) {
    const settings = readProviderSettings();
    const hint = settings.provider === "openai-compatible" ? " If the server's model does accept images, turn on the setting piChat.imageInput." : "";
    throw new Error(
      `The model ${settings.model || `of ${settings.provider}`} cannot see images, so nothing was sent. Remove the images to send the text alone, or choose a model that accepts images.${hint}`,
    );
  }
  const stored: StoredImageContent[] = [];
  for (const [index, image] of images.entries()) {
    const accepted = acceptAttachedImage(image.data, images.length === 1 ? "The attached image" : `Attached image ${index + 1}`);
    if (!accepted.ok) throw new Error(`${accepted.reason} Nothing was sent.`);
    // The type is the one the bytes say, whatever the webview claimed.
    const blob = await service.storeImage(chatId, accepted.bytes, accepted.info.mimeType);
    stored.push({ type: "image", data: image.data, mimeType: accepted.info.mimeType, blob });
  }
  return stored;
}

export function imageInputStatus(accepts: boolean | undefined): Pick<ViewStatus, "imageInput"> {
  if (accepts !== undefined) return { imageInput: accepts };
  // OpenAI-compatible servers: the setting is known without the provider bundle.
  const settings = readProviderSettings();
  return settings.provider === "openai-compatible" ? { imageInput: settings.imageInput === true } : {};
}
