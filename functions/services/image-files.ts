import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { type ImageContentType, isImageContentType } from '../domain/images.ts';

/** A photo file as read from its own bytes. */
export interface InspectedImage {
  contentType: ImageContentType;
  width: number;
  height: number;
}

/**
 * What a file really is: its type from its magic bytes (`file-type`), never from a header or a name,
 * and its width and height (`image-size`). Undefined unless it is a JPEG, PNG, WebP, AVIF or GIF
 * whose dimensions can be read. `bytes` may be the start of the file only: the dimensions of every
 * accepted format sit in its first blocks (a JPEG's frame header follows its EXIF data).
 */
export async function inspectImage(bytes: Uint8Array): Promise<InspectedImage | undefined> {
  const detected = await fileTypeFromBuffer(bytes);
  if (!detected || !isImageContentType(detected.mime)) return undefined;
  try {
    const { width, height } = imageSize(bytes);
    if (!width || !height) return undefined;
    return { contentType: detected.mime, width, height };
  } catch {
    return undefined;
  }
}
