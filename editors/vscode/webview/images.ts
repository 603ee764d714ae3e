/** Pictures pasted or dropped into the composer: checked here (type, size) and read as base64 for an ACP image block.
 * The server checks them again (magic bytes, llm.image_max_bytes) and tells the user when the model cannot see. */

import type { PromptImage } from "../src/messages";

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** The server's default llm.image_max_bytes. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** The image files of a paste or a drop (other files and text are left to the textarea). */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  return [...data.files].filter((f) => f.type.startsWith("image/"));
}

/** One file as a prompt image, or an error message saying why it cannot be sent. */
export async function readImage(file: File): Promise<PromptImage | string> {
  const name = file.name || "pasted image";
  if (!IMAGE_TYPES.includes(file.type)) return `${name}: only PNG, JPEG, GIF and WebP pictures can be sent (this is ${file.type || "unknown"})`;
  if (file.size > MAX_IMAGE_BYTES) return `${name}: ${file.size} bytes, over the limit of ${MAX_IMAGE_BYTES}`;
  const url = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  }).catch((err: unknown) => `${name}: cannot be read (${String(err)})`);
  const comma = url.indexOf(";base64,");
  if (!url.startsWith("data:") || comma < 0) return url;
  return { name, mimeType: file.type, data: url.slice(comma + ";base64,".length) };
}

/** The thumbnails of the attached pictures, each with a remove button (`data-image` = its index). */
export function thumbnails(images: PromptImage[]): HTMLElement[] {
  return images.map((image, i) => {
    const thumb = document.createElement("span");
    thumb.className = "thumb";
    thumb.title = image.name;
    const img = document.createElement("img");
    img.src = `data:${image.mimeType};base64,${image.data}`;
    img.alt = image.name;
    const x = document.createElement("button");
    x.type = "button";
    x.className = "thumb-remove";
    x.dataset.image = String(i);
    x.title = `Remove ${image.name}`;
    x.textContent = "✕";
    thumb.append(img, x);
    return thumb;
  });
}
