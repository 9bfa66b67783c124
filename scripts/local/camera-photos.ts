/**
 * Photo-sized files made with sharp itself, for the renditions tests and the bench: a 24-megapixel
 * camera JPEG (a drawn house, sky and lawn, with a mid-scale texture and a camera's sensor noise, so
 * that it compresses as a photo does rather than as a flat colour), with the EXIF a phone writes
 * (make, model, GPS position, orientation); a 4,000 px PNG; and the hostile files of the import rules.
 */
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** Where the camera photo says it was taken (its EXIF GPS), in degrees. */
export const CAMERA_GPS = { latitude: 36.5, longitude: -4.8833 } as const;

/** A scene as SVG: sky, lawn, a house with windows and a roof, shrubs. */
function sceneSvg(w: number, h: number): Buffer {
  const parts = [
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#5b8fd6"/><stop offset="1" stop-color="#cfe3f5"/></linearGradient>`,
    `<linearGradient id="wall" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#e8dcc4"/><stop offset="1" stop-color="#c9b48e"/></linearGradient>`,
    `<linearGradient id="grass" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#6f9a3c"/><stop offset="1" stop-color="#3f6420"/></linearGradient></defs>`,
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    `<rect y="${h * 0.72}" width="${w}" height="${h * 0.28}" fill="url(#grass)"/>`,
    `<rect x="${w * 0.18}" y="${h * 0.3}" width="${w * 0.64}" height="${h * 0.45}" fill="url(#wall)"/>`,
    `<polygon points="${w * 0.14},${h * 0.31} ${w * 0.5},${h * 0.1} ${w * 0.86},${h * 0.31}" fill="#9c3b24"/>`,
  ];
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 2; j++) {
      parts.push(
        `<rect x="${w * (0.22 + i * 0.12)}" y="${h * (0.38 + j * 0.18)}" width="${w * 0.07}" height="${h * 0.11}" fill="#35495e" stroke="#ffffff" stroke-width="${w * 0.004}"/>`,
      );
    }
  }
  for (let i = 0; i < 12; i++) {
    parts.push(
      `<circle cx="${w * (0.03 + i * 0.09)}" cy="${h * 0.74}" r="${w * (0.03 + (i % 3) * 0.01)}" fill="#2f5a1c"/>`,
    );
  }
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${parts.join('')}</svg>`,
  );
}

const noise = (width: number, height: number, sigma: number) =>
  sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma },
    },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });

/** `width` × `height` raw RGB of the scene, textured and noisy like a photo. */
async function photoPixels(width: number, height: number): Promise<Buffer> {
  const w = Math.round(width / 4);
  const h = Math.round(height / 4);
  const raw = (x: number, y: number) => ({ raw: { width: x, height: y, channels: 3 as const } });
  const drawn = await sharp(sceneSvg(w, h)).removeAlpha().raw().toBuffer();
  const texture = await noise(Math.round(w / 3), Math.round(h / 3), 30);
  const textureUp = await sharp(texture.data, { raw: texture.info })
    .resize(w, h, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const small = await sharp(drawn, raw(w, h))
    .composite([{ input: textureUp, ...raw(w, h), blend: 'soft-light' }])
    .removeAlpha()
    .raw()
    .toBuffer();
  const up = await sharp(small, raw(w, h)).resize(width, height, { kernel: 'cubic' }).raw().toBuffer();
  const sensor = await noise(width, height, 12);
  return sharp(up, raw(width, height))
    .composite([{ input: sensor.data, raw: sensor.info, blend: 'soft-light' }])
    .removeAlpha()
    .raw()
    .toBuffer();
}

/** Degrees as EXIF's rational degrees, minutes, seconds. */
function dms(degrees: number): string {
  const d = Math.floor(Math.abs(degrees));
  const minutes = (Math.abs(degrees) - d) * 60;
  const m = Math.floor(minutes);
  const s = Math.round((minutes - m) * 60 * 100);
  return `${d}/1 ${m}/1 ${s}/100`;
}

/**
 * A camera JPEG (quality 92), 6,000 × 4,000 (24 megapixels, about 5 MB) unless asked otherwise, with
 * the EXIF a camera writes: make, model, the GPS position CAMERA_GPS, and `orientation`. With
 * orientation 6 (a photo taken in portrait) the pixels are stored turned 90° anticlockwise, as a
 * camera stores them, so that only a reader that applies the orientation shows the house upright
 * (sky at the top, lawn at the bottom).
 */
export async function cameraJpeg(
  options: { width?: number; height?: number; orientation?: 1 | 6 } = {},
): Promise<Buffer> {
  const { width = 6000, height = 4000, orientation = 1 } = options;
  // The scene as shown: portrait for orientation 6.
  const [shownW, shownH] = orientation === 6 ? [height, width] : [width, height];
  let image = sharp(await photoPixels(shownW, shownH), {
    raw: { width: shownW, height: shownH, channels: 3 },
  });
  if (orientation === 6) {
    image = sharp(await image.rotate(-90).raw().toBuffer(), { raw: { width, height, channels: 3 } });
  }
  return image
    .jpeg({ quality: 92 })
    .withMetadata({ orientation })
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'Bench 24' },
      IFD3: {
        GPSLatitudeRef: CAMERA_GPS.latitude >= 0 ? 'N' : 'S',
        GPSLatitude: dms(CAMERA_GPS.latitude),
        GPSLongitudeRef: CAMERA_GPS.longitude >= 0 ? 'E' : 'W',
        GPSLongitude: dms(CAMERA_GPS.longitude),
      },
    })
    .toBuffer();
}

/** A small real photo (`width` × `height`), to decode fast. */
export async function smallJpeg(width = 800, height = 600): Promise<Buffer> {
  return sharp(await photoPixels(width, height), { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32(data.length), body, u32(crc32(body))]);
}

/**
 * A decompression bomb: a PNG of a few hundred bytes whose header declares 30,000 × 30,000 pixels
 * (2.7 GB of RGB once decoded) unless told otherwise, followed by the start of its compressed rows.
 */
export function decompressionBomb(width = 30_000, height = 30_000): Buffer {
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', Buffer.concat([u32(width), u32(height), Buffer.from([8, 2, 0, 0, 0])])),
    pngChunk('IDAT', deflateSync(Buffer.alloc(100_000))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A real JPEG cut off at 60% of its bytes (an upload or a download that stopped). */
export async function truncatedJpeg(): Promise<Buffer> {
  const whole = await smallJpeg();
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}

/** A CMYK JPEG (as print workflows export them). */
export async function cmykJpeg(): Promise<Buffer> {
  return sharp(await smallJpeg())
    .toColourspace('cmyk')
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A 16-bit-per-channel PNG (as raw converters export them). */
export async function png16(): Promise<Buffer> {
  return sharp(await smallJpeg())
    .toColourspace('rgb16')
    .png()
    .toBuffer();
}

/** An animated GIF of two frames: red, then green (400 × 300). */
export async function animatedGif(): Promise<Buffer> {
  const frame = (background: string) =>
    sharp({ create: { width: 400, height: 300, channels: 3, background } })
      .png()
      .toBuffer();
  return sharp([await frame('#ff0000'), await frame('#00ff00')], { join: { animated: true } })
    .gif({ delay: [200, 200] })
    .toBuffer();
}

/**
 * The tags of a JPEG's or WebP's EXIF block (IFD0, and the GPS IFD it points to), by tag number: an
 * EXIF parser of its own, so that the check does not trust the writer it checks. `exif` is sharp's
 * `metadata().exif` (the block, with or without its `Exif\0\0` header).
 */
export function exifTags(exif: Buffer | undefined): { ifd0: Map<number, number>; gps: Map<number, number> } {
  const empty = { ifd0: new Map<number, number>(), gps: new Map<number, number>() };
  if (!exif || exif.length < 8) return empty;
  const tiff = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? exif.subarray(6) : exif;
  const little = tiff.subarray(0, 2).toString('latin1') === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32at = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = (offset: number) => {
    const tags = new Map<number, number>();
    if (offset + 2 > tiff.length) return tags;
    const count = u16(offset);
    for (let i = 0; i < count; i++) {
      const entry = offset + 2 + i * 12;
      if (entry + 12 > tiff.length) break;
      tags.set(u16(entry), u32at(entry + 8));
    }
    return tags;
  };
  const ifd0 = ifd(u32at(4));
  const gpsOffset = ifd0.get(0x8825);
  return { ifd0, gps: gpsOffset === undefined ? new Map() : ifd(gpsOffset) };
}

/**
 * One small, fully decodable file of each accepted format, encoded by sharp (the AVIF of
 * image-files.ts has no AV1 payload: enough to type and size it, not to render it).
 */
export async function formatSamples(): Promise<
  { name: string; contentType: string; width: number; height: number; bytes: Buffer }[]
> {
  const of = async (width: number, height: number) =>
    sharp(await photoPixels(width * 4, height * 4), {
      raw: { width: width * 4, height: height * 4, channels: 3 },
    })
      .resize(width, height)
      .raw()
      .toBuffer()
      .then((data) => sharp(data, { raw: { width, height, channels: 3 } }));
  return [
    {
      name: 'photo.jpg',
      contentType: 'image/jpeg',
      width: 40,
      height: 30,
      bytes: await (await of(40, 30)).jpeg().toBuffer(),
    },
    {
      name: 'photo.png',
      contentType: 'image/png',
      width: 33,
      height: 21,
      bytes: await (await of(33, 21)).png().toBuffer(),
    },
    {
      name: 'photo.webp',
      contentType: 'image/webp',
      width: 64,
      height: 48,
      bytes: await (await of(64, 48)).webp().toBuffer(),
    },
    {
      name: 'photo.avif',
      contentType: 'image/avif',
      width: 96,
      height: 54,
      bytes: await (await of(96, 54)).avif().toBuffer(),
    },
    {
      name: 'photo.gif',
      contentType: 'image/gif',
      width: 12,
      height: 7,
      bytes: await (await of(12, 7)).gif().toBuffer(),
    },
  ];
}
