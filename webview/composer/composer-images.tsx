// The images waiting in the composer: thumbnails (each removable), the reasons a file was not
// attached, and — when the model cannot see images — the choice to send the text alone; the
// button that picks image files; and the images of a sent message.
import { createContext } from "preact";
import { IMAGE_EXTENSIONS, isImageMimeType } from "../../src/shared/image-sniff";
import type { ComposerImage } from "./image-attach";
import { useRef } from "preact/hooks";
import { CloseIcon, ImageIcon, WarningIcon } from "../icons";

export function ComposerImages(props: { images: readonly ComposerImage[]; notes: readonly string[]; onRemove: (id: number) => void }) {
  if (props.images.length === 0 && props.notes.length === 0) return null;
  return (
    <>
      {props.images.length > 0 && (
        <ul class="image-strip" aria-label="Attached images" data-focus-scope="images">
          {props.images.map((image) => {
            const size = `${image.width}×${image.height}`;
            const scaled = image.scaledFrom ? ` (scaled from ${image.scaledFrom.width}×${image.scaledFrom.height})` : "";
            return (
              <li key={image.id} class="image-thumb" title={`${image.name}, ${size}${scaled}`}>
                <img src={`data:${image.mimeType};base64,${image.data}`} alt={image.name} />
                <button type="button" class="chip-remove image-remove" aria-label={`Remove image ${image.name}`} onClick={() => props.onRemove(image.id)}>
                  <CloseIcon />
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {props.notes.length > 0 && (
        <div class="image-notes" role="alert">
          {props.notes.map((note, i) => (
            <div key={i}>{note}</div>
          ))}
        </div>
      )}
    </>
  );
}

/** The attach button and its hidden file input. */
export function ImagePicker({ onFiles }: { onFiles: (files: File[]) => void }) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        class="icon-button attach-button"
        title="Attach images (PNG, JPEG, GIF, WebP)"
        aria-label="Attach images"
        onClick={() => picker.current?.click()}
      >
        <ImageIcon />
      </button>
      <input
        ref={picker}
        type="file"
        class="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        accept="image/png,image/jpeg,image/gif,image/webp"
        multiple
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          e.currentTarget.value = "";
          onFiles(files);
        }}
      />
    </>
  );
}

export function ImageInputNotice(props: { modelLabel: string; canSendText: boolean; onSendText: () => void; onRemove: () => void }) {
  return (
    <div class="image-input-notice" role="alert">
      <WarningIcon class="warn" />
      <span class="grow">The current model{props.modelLabel ? ` (${props.modelLabel})` : ""} cannot see images, so they cannot be sent with it.</span>
      <button type="button" class="button" disabled={!props.canSendText} onClick={props.onSendText}>
        Send text only
      </button>
      <button type="button" class="button" onClick={props.onRemove}>
        Remove images
      </button>
    </div>
  );
}

/** Webview URL of the current chat's image folder (from the snapshot). */
export const ImageBaseContext = createContext<string | undefined>(undefined);

/** Thumbnails of the images a sent message carried, from their blob files beside the chat. */
/** Where a sent image's thumbnail is loaded from: its blob file beside the chat. */
export function imageUrl(base: string, image: { blob: string; mimeType: string }): string {
  return `${base}/${image.blob}.${isImageMimeType(image.mimeType) ? IMAGE_EXTENSIONS[image.mimeType] : "png"}`;
}

export function MessageImages(props: { images: readonly { blob: string; mimeType: string }[]; base: string | undefined }) {
  if (props.images.length === 0) return null;
  return (
    <ul class="message-images" aria-label="Images">
      {props.images.map((image, i) => (
        <li key={`${i}:${image.blob}`} class="image-thumb">
          {props.base ? (
            <img src={imageUrl(props.base, image)} alt={`Attachment ${i + 1} of ${props.images.length}`} />
          ) : (
            <span class="image-missing">Image {i + 1}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
