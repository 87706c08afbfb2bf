// The images of a chat, beside it: `images/<chatId>/<sha256>.<ext>`, each written once,
// named by the hash of its bytes. The transcript line holds only the hash (see
// src/core/images/stored-images.ts), so a chat with many images stays small and an append
// stays one short line; deleting the chat deletes the folder.
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { IMAGE_EXTENSIONS, isImageMimeType } from "../../shared/image-sniff";

/** Under the store's folder, beside `chats/`. */
export const IMAGES_DIR = "images";
const HASH = /^[0-9a-f]{64}$/;
const CHAT_ID = /^[a-z0-9][a-z0-9_-]{0,127}$/;

/** Base64 of recently read images, so each request does not read every image again. */
const CACHE_MAX_CHARS = 64 * 1024 * 1024;

export interface ImageBlobSource {
  /** The image's bytes, exactly as stored (checked against the hash), or undefined when gone or damaged. */
  readBase64(chatId: string, sha256: string, mimeType: string): Promise<string | undefined>;
}

export class ImageBlobStore implements ImageBlobSource {
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;

  /** `root` is the store's folder (the one holding `chats/`). */
  constructor(private readonly root: string) {}

  /**
   * Folder of a chat's images. Apart from `chats/`, so the webview can be allowed to load the
   * images (its resource root) without being able to load any transcript.
   */
  folderOf(chatId: string): string {
    checkChatId(chatId);
    return join(this.root, IMAGES_DIR, chatId);
  }

  static fileName(sha256: string, mimeType: string): string {
    if (!HASH.test(sha256) || !isImageMimeType(mimeType)) throw new Error("not an image blob reference");
    return `${sha256}.${IMAGE_EXTENSIONS[mimeType]}`;
  }

  /** Writes the image unless that chat has it already; returns its SHA-256 (hex). */
  async put(chatId: string, bytes: Uint8Array, mimeType: string): Promise<string> {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const folder = this.folderOf(chatId);
    const file = join(folder, ImageBlobStore.fileName(sha256, mimeType));
    if (await exists(file)) return sha256;
    await fs.mkdir(folder, { recursive: true });
    // Written under a temporary name and renamed: a crash never leaves a partial blob under the real name.
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    await fs.writeFile(temp, bytes);
    await fs.rename(temp, file);
    this.remember(sha256, Buffer.from(bytes).toString("base64"));
    return sha256;
  }

  async readBase64(chatId: string, sha256: string, mimeType: string): Promise<string | undefined> {
    const cached = this.cache.get(sha256);
    if (cached !== undefined) return cached;
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(join(this.folderOf(chatId), ImageBlobStore.fileName(sha256, mimeType)));
    } catch {
      return undefined;
    }
    if (createHash("sha256").update(bytes).digest("hex") !== sha256) return undefined;
    const base64 = bytes.toString("base64");
    this.remember(sha256, base64);
    return base64;
  }

  /** Removes the chat's images (nothing to do when it has none). */
  async deleteChat(chatId: string): Promise<void> {
    await fs.rm(this.folderOf(chatId), { recursive: true, force: true });
  }

  private remember(sha256: string, base64: string): void {
    if (base64.length > CACHE_MAX_CHARS / 4) return;
    const old = this.cache.get(sha256);
    if (old !== undefined) this.cachedChars -= old.length;
    this.cache.delete(sha256);
    this.cache.set(sha256, base64);
    this.cachedChars += base64.length;
    for (const [key, value] of this.cache) {
      if (this.cachedChars <= CACHE_MAX_CHARS) break;
      this.cache.delete(key);
      this.cachedChars -= value.length;
    }
  }
}

function checkChatId(chatId: string): void {
  if (!CHAT_ID.test(chatId)) throw new Error(`invalid chat id ${JSON.stringify(chatId)}`);
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch {
    return false;
  }
}
