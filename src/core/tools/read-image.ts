// read_file on an image: the model gets the image itself (ImageContent) and one line of text
// saying what it is, or, when the current model cannot see images, a sentence saying so. The
// type comes from the bytes (src/shared/image-sniff.ts): SVG and a text file named .png are text.
// An image whose long side is over 2,000 px (pi's read tool caps it there), or whose bytes are
// over the cap, is scaled down by an injected scaler (a worker with photon in the extension);
// without one, or when even the scaled image is over the cap, the call is refused with the reason.
import type { ImageContent, TextContent } from "@earendil-works/pi-ai";
import { imageProblem, sniffImage, type ImageInfo, type ImageMimeType } from "../../shared/image-sniff";
import type { ImageScaler } from "../images/image-scaler";
import type { OpenedFile } from "./file-access";
import { formatBytes } from "../../shared/format";
import { throwIfAborted, WorkspaceToolError } from "./tool-error";

/** Long side, in pixels, of an image given to the model. */
export const MAX_IMAGE_SIDE = 2000;
/** Bytes of an image given to the model: under Anthropic's 5 MB per image, as pi's read tool does. */
export const MAX_IMAGE_BYTES = 4.5 * 1024 * 1024;

export interface ReadImageOptions {
  /** Whether the current model accepts images; `false` gets the text notice, `undefined` (unknown) sends. */
  acceptsImages?: () => boolean | undefined;
  /** Scales a large image down; without it a large image is refused with the reason. */
  scale?: ImageScaler;
  maxSide?: number;
  maxBytes?: number;
}

/** For the UI (read_file's details.image): what the file is and what the model was given. */
export interface ReadImageInfo {
  mimeType: ImageMimeType;
  /** As in the file (0 when its header does not say). */
  width: number;
  height: number;
  /** What was sent: the same unless scaled. Absent when nothing was sent. */
  sent?: { mimeType: ImageMimeType; width: number; height: number; bytes: number; scaled: boolean };
  /** Why no image was sent (the model cannot see images). */
  notSent?: string;
}

const TYPE_NAMES: Record<ImageMimeType, string> = { "image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP" };

function pixels(width: number, height: number): string {
  return width > 0 && height > 0 ? `${width}×${height} px` : "size unknown";
}

export async function readImage(
  file: OpenedFile,
  info: ImageInfo,
  options: ReadImageOptions,
  signal?: AbortSignal,
): Promise<{ content: (TextContent | ImageContent)[]; image: ReadImageInfo }> {
  const maxSide = options.maxSide ?? MAX_IMAGE_SIDE;
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  const type = TYPE_NAMES[info.mimeType];
  const what = `${file.path} is a ${type} image (${pixels(info.width, info.height)}, ${formatBytes(file.bytes.length)})`;
  const image = { mimeType: info.mimeType, width: info.width, height: info.height };

  if (options.acceptsImages?.() === false) {
    const notSent = "The current model cannot see images.";
    return {
      content: [
        { type: "text", text: `${what}. ${notSent} The image was not sent; ask the user to describe it, or to switch to a model that accepts images.` },
      ],
      image: { ...image, notSent },
    };
  }

  // Before any decoder sees it: a size the header does not give, too many pixels, a cut-short file.
  const problem = imageProblem(file.bytes, info);
  if (problem) throw new WorkspaceToolError("image_refused", `${what}, and ${problem}, so it was not read.`);

  const fits = info.width > 0 && info.height > 0 && Math.max(info.width, info.height) <= maxSide && file.bytes.length <= maxBytes;
  if (fits) {
    return {
      content: [
        { type: "text", text: `[Image: ${file.path}, ${type}, ${pixels(info.width, info.height)}, ${formatBytes(file.bytes.length)}]` },
        { type: "image", data: Buffer.from(file.bytes).toString("base64"), mimeType: info.mimeType },
      ],
      image: { ...image, sent: { mimeType: info.mimeType, width: info.width, height: info.height, bytes: file.bytes.length, scaled: false } },
    };
  }

  const over =
    Math.max(info.width, info.height) > maxSide ? `its long side is over ${maxSide.toLocaleString("en-US")} px` : `it is over ${formatBytes(maxBytes)}`;
  if (!options.scale) {
    throw new WorkspaceToolError("image_refused", `${what}, and ${over}; images that large cannot be scaled down here, so it was not read.`);
  }
  const scaled = await options.scale({ bytes: file.bytes, mimeType: info.mimeType, maxSide, maxBytes }, signal);
  throwIfAborted(signal);
  if (!scaled.ok) {
    const why =
      "tooLarge" in scaled
        ? `even scaled to ${pixels(scaled.tooLarge.width, scaled.tooLarge.height)} it is ${formatBytes(scaled.tooLarge.bytes)}, over the ${formatBytes(maxBytes)} an image may have`
        : scaled.reason;
    throw new WorkspaceToolError("image_refused", `${what}, and ${over}. It was not read: ${why}.`);
  }
  // The type sent is the one the bytes are: checked, not assumed from the encoder asked for.
  if (sniffImage(scaled.bytes)?.mimeType !== scaled.mimeType) {
    throw new WorkspaceToolError(
      "image_refused",
      `${what}, and ${over}. It was not read: the scaled image did not come out as ${TYPE_NAMES[scaled.mimeType]}.`,
    );
  }
  const sentType = TYPE_NAMES[scaled.mimeType];
  return {
    content: [
      {
        type: "text",
        text: `[Image: ${file.path}, ${type}, ${pixels(scaled.originalWidth, scaled.originalHeight)}, ${formatBytes(file.bytes.length)}; shown scaled to ${pixels(scaled.width, scaled.height)} (${sentType}, ${formatBytes(scaled.bytes.length)})]`,
      },
      { type: "image", data: Buffer.from(scaled.bytes).toString("base64"), mimeType: scaled.mimeType },
    ],
    image: {
      ...image,
      width: scaled.originalWidth,
      height: scaled.originalHeight,
      sent: { mimeType: scaled.mimeType, width: scaled.width, height: scaled.height, bytes: scaled.bytes.length, scaled: true },
    },
  };
}
