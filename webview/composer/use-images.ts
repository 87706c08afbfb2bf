// The images waiting in the composer: pasted, dropped or picked files each become a thumbnail, or
// a note saying why not (not an image, too large, more than a message may carry).
import { useState } from "preact/hooks";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import { MAX_PROMPT_IMAGES, prepareImage, type ComposerImage } from "./image-attach";

export function useImages(imageInput: boolean | undefined) {
  const [images, setImages] = useState<ComposerImage[]>([]);
  const [notes, setNotes] = useState<string[]>([]);

  const add = async (files: readonly File[]) => {
    if (files.length === 0) return;
    if (imageInput === undefined) post({ type: "composer/checkImageInput" });
    const refused: string[] = [];
    const added: ComposerImage[] = [];
    for (const file of files) {
      const outcome = await prepareImage(file);
      if (outcome.ok) added.push(outcome.image);
      else refused.push(outcome.reason);
    }
    const attached = added.slice(0, Math.max(0, MAX_PROMPT_IMAGES - images.length));
    if (attached.length > 0) announce(`Attached ${attached.length === 1 ? "image" : `${attached.length} images:`} ${attached.map((i) => i.name).join(", ")}`);
    setImages((current) => {
      const room = MAX_PROMPT_IMAGES - current.length;
      if (added.length > room) refused.push(`At most ${MAX_PROMPT_IMAGES} images go with one message; ${added.length - Math.max(0, room)} were not attached.`);
      return [...current, ...added.slice(0, Math.max(0, room))];
    });
    setNotes(refused);
  };

  return {
    images,
    notes,
    add,
    remove: (id: number) => setImages((current) => current.filter((i) => i.id !== id)),
    removeAll: () => setImages([]),
    clear() {
      setImages([]);
      setNotes([]);
    },
  };
}
