import { createHash } from 'node:crypto';
import type { Sharp, SharpOptions } from 'sharp';
import { MAX_INPUT_PIXELS, type RenditionType, renditionFile, renditionPlan } from '../domain/images.ts';

/**
 * A photo's renditions, made with sharp (libvips): the widths of `renditionPlan` in WebP and one JPEG
 * fallback, EXIF orientation applied, every piece of metadata left behind (EXIF with its GPS, XMP,
 * IPTC, ICC profiles, comments). Only the photo import worker loads this module (sharp is a native
 * package, shipped in that function's bundle alone: lib/bundling.ts).
 *
 * The file is decoded once, oriented, flattened onto white, converted to 8-bit sRGB and shrunk to the
 * largest width as raw pixels; each rendition is encoded from those pixels, which carry no metadata at
 * all, so none can reach a served file. A CMYK or 16-bit file comes out as 8-bit sRGB; an animated
 * GIF or WebP as its first frame.
 */

/** WebP quality: a 640 px card of a camera photo stays under 100 KB, a 1600 px view under 400 KB. */
const WEBP_QUALITY = 75;
const JPEG_QUALITY = 80;
/** A limit on each libvips operation, however the file is made (a pathological file ends, it does not hang). */
const OPERATION_SECONDS = 60;

/** One file made from a photo, with its bytes. */
export interface RenderedFile {
  file: string;
  body: Buffer;
  width: number;
  height: number;
  contentType: RenditionType;
  sizeBytes: number;
}

export type RenderOutcome =
  | {
      ok: true;
      /** The photo's size once oriented. */
      width: number;
      height: number;
      /** WebP by width, then the JPEG fallback. */
      files: RenderedFile[];
    }
  | { ok: false; reason: 'too_many_pixels' | 'unreadable_image'; detail: string };

let loaded: Promise<typeof import('sharp').default> | undefined;

/**
 * sharp, loaded on first use: its cache off (a worker renders each photo once; libvips' operation
 * cache would only hold memory) and one thread per vCPU Lambda gives (libvips' default).
 */
function sharpModule(): Promise<typeof import('sharp').default> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

/**
 * How every file is opened: at most MAX_INPUT_PIXELS (checked against the header and again while
 * decoding), the first page of an animation only, and a truncated or corrupt file refused rather
 * than rendered with grey where its data ends.
 */
const INPUT: SharpOptions = {
  limitInputPixels: MAX_INPUT_PIXELS,
  failOn: 'truncated',
  pages: 1,
  sequentialRead: true,
};

function refusal(error: unknown): Extract<RenderOutcome, { ok: false }> {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) {
    return {
      ok: false,
      reason: 'too_many_pixels',
      detail: `The image declares more than ${MAX_INPUT_PIXELS / 1_000_000} megapixels`,
    };
  }
  return { ok: false, reason: 'unreadable_image', detail: `The image cannot be decoded: ${message}` };
}

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

/** Makes the renditions of one photo (`imageId` names their files); a file sharp refuses is a reason. */
export async function renderPhoto(imageId: string, bytes: Uint8Array): Promise<RenderOutcome> {
  const sharp = await sharpModule();
  let width: number;
  let height: number;
  try {
    const metadata = await sharp(bytes, INPUT).metadata();
    ({ width, height } = metadata.autoOrient);
    if (width * height > MAX_INPUT_PIXELS) throw new Error('Input image exceeds pixel limit');
  } catch (error) {
    return refusal(error);
  }
  const plan = renditionPlan(width);
  const largest = Math.max(...plan.webp);
  let pixels: { data: Buffer; info: { width: number; height: number; channels: 1 | 2 | 3 | 4 } };
  try {
    const { data, info } = await sharp(bytes, INPUT)
      .timeout({ seconds: OPERATION_SECONDS })
      .autoOrient()
      .resize({ width: largest, withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    pixels = { data, info: { width: info.width, height: info.height, channels: info.channels } };
  } catch (error) {
    return refusal(error);
  }
  const from = (): Sharp => sharp(pixels.data, { raw: pixels.info }).timeout({ seconds: OPERATION_SECONDS });
  const encode = async (w: number, type: RenditionType): Promise<RenderedFile> => {
    const resized = from().resize({ width: w, withoutEnlargement: true });
    const { data, info } = await (type === 'image/webp'
      ? resized.webp({ quality: WEBP_QUALITY })
      : resized.jpeg({ quality: JPEG_QUALITY, progressive: true })
    ).toBuffer({ resolveWithObject: true });
    return {
      file: renditionFile(imageId, info.width, sha256(data), type),
      body: data,
      width: info.width,
      height: info.height,
      contentType: type,
      sizeBytes: data.length,
    };
  };
  const files: RenderedFile[] = [];
  // One after another: the worker has about one vCPU, and libvips already threads each encode.
  for (const w of plan.webp) files.push(await encode(w, 'image/webp'));
  files.push(await encode(plan.jpeg, 'image/jpeg'));
  return { ok: true, width, height, files };
}
