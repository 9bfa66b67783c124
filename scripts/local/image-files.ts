/**
 * Small photo files of each accepted format, built here so the tests need no binary fixtures.
 * JPEG, PNG, GIF and WebP are complete, decodable images of one grey colour; the AVIF file has the
 * boxes a reader identifies and sizes it by (`ftyp` brand avif, `meta/iprp/ipco/ispe`) but no AV1
 * payload, which neither the type check nor the size check reads.
 */
import { crc32, deflateSync } from 'node:zlib';

const u16be = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const u16le = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff]);
const u32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** Writes bits most significant first (JPEG) or least significant first (GIF, WebP lossless). */
class BitWriter {
  readonly #bytes: number[] = [];
  #current = 0;
  #used = 0;
  readonly order: 'msb' | 'lsb';
  constructor(order: 'msb' | 'lsb') {
    this.order = order;
  }
  write(value: number, bits: number): void {
    for (let i = 0; i < bits; i++) {
      const bit = this.order === 'msb' ? (value >> (bits - 1 - i)) & 1 : (value >> i) & 1;
      if (this.order === 'msb') this.#current |= bit << (7 - this.#used);
      else this.#current |= bit << this.#used;
      this.#used++;
      if (this.#used === 8) this.flushByte();
    }
  }
  private flushByte(): void {
    this.#bytes.push(this.#current);
    this.#current = 0;
    this.#used = 0;
  }
  /** The bytes written, the last one padded with `padBit`. */
  finish(padBit: 0 | 1 = 0): Buffer {
    if (this.#used > 0) {
      if (padBit === 1) this.write(0xff >> this.#used, 8 - this.#used);
      else this.flushByte();
    }
    return Buffer.from(this.#bytes);
  }
}

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32be(data.length), body, u32be(crc32(body))]);
}

/** A grey RGB PNG. */
export function pngFile(width: number, height: number): Buffer {
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x80)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 2, 0, 0, 0])])),
    pngChunk('IDAT', deflateSync(pixels)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function jpegSegment(marker: number, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0xff, marker]), u16be(data.length + 2), data]);
}

/**
 * A grey baseline JPEG: one component, every 8×8 block DC 0 and end-of-block at once, with
 * one-symbol Huffman tables (code `0`), so each block is two bits. `paddingBytes` adds comment
 * segments before the frame header (to build a large file whose dimensions sit far in).
 */
export function jpegFile(width: number, height: number, paddingBytes = 0): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const scan = new BitWriter('msb');
  for (let b = 0; b < blocks; b++) scan.write(0, 2);
  const oneSymbolTable = (classAndId: number) =>
    jpegSegment(0xc4, Buffer.concat([Buffer.from([classAndId, 1]), Buffer.alloc(15), Buffer.from([0])]));
  const comments: Buffer[] = [];
  for (let left = paddingBytes; left > 0; left -= 65_000) {
    comments.push(jpegSegment(0xfe, Buffer.alloc(Math.min(65_000, left), 0x20)));
  }
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0])),
    ...comments,
    jpegSegment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    jpegSegment(
      0xc0,
      Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])]),
    ),
    oneSymbolTable(0x00),
    oneSymbolTable(0x10),
    jpegSegment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    scan.finish(1),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/**
 * A GIF of colour 0: LZW with a clear code before every two pixels, so the codes stay 3 bits wide.
 */
export function gifFile(width: number, height: number): Buffer {
  const lzw = new BitWriter('lsb');
  const clear = 4;
  const end = 5;
  const pixels = width * height;
  for (let p = 0; p < pixels; p += 2) {
    lzw.write(clear, 3);
    lzw.write(0, 3);
    if (p + 1 < pixels) lzw.write(0, 3);
  }
  lzw.write(end, 3);
  const data = lzw.finish();
  const blocks: Buffer[] = [];
  for (let i = 0; i < data.length; i += 255) {
    const part = data.subarray(i, i + 255);
    blocks.push(Buffer.from([part.length]), part);
  }
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    u16le(width),
    u16le(height),
    Buffer.from([0x81, 0, 0]),
    Buffer.from([0x80, 0x80, 0x80, 0x40, 0x40, 0x40, 0, 0, 0, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c]),
    u16le(0),
    u16le(0),
    u16le(width),
    u16le(height),
    Buffer.from([0, 2]),
    ...blocks,
    Buffer.from([0, 0x3b]),
  ]);
}

/**
 * A lossless WebP (VP8L) of one colour: no transforms, no colour cache, five one-symbol prefix codes,
 * so every pixel takes zero bits.
 */
export function webpFile(width: number, height: number): Buffer {
  const bits = new BitWriter('lsb');
  bits.write(0x2f, 8);
  bits.write(width - 1, 14);
  bits.write(height - 1, 14);
  bits.write(0, 1); // no alpha used
  bits.write(0, 3); // version 0
  bits.write(0, 1); // no transform
  bits.write(0, 1); // no colour cache
  bits.write(0, 1); // no meta prefix codes
  const simpleCode = (symbol: number) => {
    bits.write(1, 1); // simple code
    bits.write(0, 1); // one symbol
    bits.write(1, 1); // 8-bit symbol
    bits.write(symbol, 8);
  };
  for (const symbol of [0x80, 0x80, 0x80, 0xff, 0]) simpleCode(symbol);
  const payload = bits.finish();
  const chunk = Buffer.concat([Buffer.from('VP8L', 'latin1'), u32le(payload.length), payload]);
  const padded = payload.length % 2 ? Buffer.concat([chunk, Buffer.from([0])]) : chunk;
  return Buffer.concat([
    Buffer.from('RIFF', 'latin1'),
    u32le(4 + padded.length),
    Buffer.from('WEBP', 'latin1'),
    padded,
  ]);
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32be(8 + body.length), Buffer.from(type, 'latin1'), body]);
}
const fullBox = (type: string, ...parts: Buffer[]) => box(type, Buffer.alloc(4), ...parts);

/** The boxes of an AVIF file that say what it is and how large (no AV1 payload). */
export function avifFile(width: number, height: number): Buffer {
  return Buffer.concat([
    box('ftyp', Buffer.from('avif', 'latin1'), u32be(0), Buffer.from('avifmif1miaf', 'latin1')),
    fullBox(
      'meta',
      fullBox('hdlr', u32be(0), Buffer.from('pict', 'latin1'), Buffer.alloc(12), Buffer.from([0])),
      box('iprp', box('ipco', fullBox('ispe', u32be(width), u32be(height)))),
    ),
  ]);
}

/** One file of each accepted format, with the type and size a reader must find. */
export const SAMPLE_IMAGES = [
  { name: 'photo.jpg', contentType: 'image/jpeg', width: 40, height: 30, bytes: jpegFile(40, 30) },
  { name: 'photo.png', contentType: 'image/png', width: 33, height: 21, bytes: pngFile(33, 21) },
  { name: 'photo.webp', contentType: 'image/webp', width: 64, height: 48, bytes: webpFile(64, 48) },
  { name: 'photo.avif', contentType: 'image/avif', width: 1920, height: 1080, bytes: avifFile(1920, 1080) },
  { name: 'photo.gif', contentType: 'image/gif', width: 12, height: 7, bytes: gifFile(12, 7) },
] as const;
