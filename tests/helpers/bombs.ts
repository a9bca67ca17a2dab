/**
 * Decompression and allocation bombs for every accepted source format: small files whose
 * decoding would cost far more memory than their header (or their size) allows. Shared by the
 * render pool test and the custom-push test, so the same bombs keep testing whichever decoder
 * the render pool uses.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** One PNG chunk with its length and CRC. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(Array.from(type, (c) => c.charCodeAt(0)), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** IHDR data: size, bit depth, colour type (0 grey, 2 RGB, 3 palette, 6 RGBA), interlace. */
export function ihdr(
  width: number,
  height: number,
  options: { depth?: number; colorType?: number; interlace?: number } = {},
): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  data[8] = options.depth ?? 8;
  data[9] = options.colorType ?? 0;
  data[12] = options.interlace ?? 0;
  return data;
}

/** A PNG from its IHDR data and further chunks (IDAT and others), with IEND. */
export function buildPng(header: Uint8Array, chunks: Uint8Array[]): Uint8Array {
  return concat([
    Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    ...chunks,
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

/** A zlib stream of `size` zero bytes (about a thousandth of its size), built in ~0.2 s. */
export async function zlibOfZeros(size: number): Promise<Uint8Array> {
  const stream = new CompressionStream("deflate");
  const writer = stream.writable.getWriter();
  const block = new Uint8Array(Math.min(size, 1 << 20));
  const writing = (async () => {
    for (let left = size; left > 0; left -= block.length) {
      await writer.write(left >= block.length ? block : block.subarray(0, left));
    }
    await writer.close();
  })();
  const out = new Uint8Array(await new Response(stream.readable).arrayBuffer());
  await writing;
  return out;
}

/** `MiB` mebibytes. */
export const MiB = 1024 * 1024;

/** A JPEG with a `width` x `height` 3-component 4:4:4 frame and a scan header but no data. */
export function emptyJpeg(width: number, height: number): Uint8Array {
  const segment = (marker: number, data: number[]) => [
    0xff,
    marker,
    (data.length + 2) >> 8,
    (data.length + 2) & 0xff,
    ...data,
  ];
  return Uint8Array.from([
    0xff,
    0xd8,
    ...segment(0xdb, [0, ...new Array(64).fill(1)]),
    ...segment(0xc0, [
      8,
      height >> 8,
      height & 0xff,
      width >> 8,
      width & 0xff,
      3,
      ...[1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0],
    ]),
    // DC and AC table 0: one 1-bit code each (category 0 / end of block)
    ...segment(0xc4, [0x00, 1, ...new Array(15).fill(0), 0]),
    ...segment(0xc4, [0x10, 1, ...new Array(15).fill(0), 0]),
    ...segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]),
  ]);
}

/** A 24-bit BMP whose header says `width` x `height` but that carries `dataBytes` of pixels. */
export function shortBmp(width: number, height: number, dataBytes: number): Uint8Array {
  const out = new Uint8Array(54 + dataBytes);
  const view = new DataView(out.buffer);
  out.set([0x42, 0x4d]);
  view.setUint32(2, out.length, true);
  view.setUint32(10, 54, true);
  view.setUint32(14, 40, true);
  view.setInt32(18, width, true);
  view.setInt32(22, height, true);
  view.setUint16(26, 1, true);
  view.setUint16(28, 24, true);
  return out;
}

/** An 8x8 grey image in `format`, made by sharp (the render's own codec library). */
async function tiny(format: "webp" | "gif" | "avif" | "tiff"): Promise<Uint8Array> {
  const { encodeRgb } = await import("../../src/infra/render/testing/images.ts");
  return await encodeRgb(new Uint8Array(8 * 8 * 3).fill(128), 8, 8, format);
}

/** Index of `text` (ASCII) in `bytes`, or -1. */
function find(bytes: Uint8Array, text: string, from = 0): number {
  outer: for (let i = from; i + text.length <= bytes.length; i++) {
    for (let k = 0; k < text.length; k++) if (bytes[i + k] !== text.charCodeAt(k)) continue outer;
    return i;
  }
  return -1;
}

/** A WebP whose extended header (VP8X) says `width` x `height` around an 8x8 image. */
async function webpClaiming(width: number, height: number): Promise<Uint8Array> {
  const image = (await tiny("webp")).subarray(12); // the image's own chunk (VP8 or VP8L)
  const vp8x = new Uint8Array(18);
  vp8x.set([0x56, 0x50, 0x38, 0x58, 10, 0, 0, 0]); // "VP8X", length 10, no flags
  const w = width - 1;
  const h = height - 1;
  vp8x.set([w & 0xff, (w >> 8) & 0xff, w >> 16, h & 0xff, (h >> 8) & 0xff, h >> 16], 12);
  const out = concat([new TextEncoder().encode("RIFF\0\0\0\0WEBP"), vp8x, image]);
  new DataView(out.buffer).setUint32(4, out.length - 8, true);
  return out;
}

/** A GIF whose screen and first image descriptor say `width` x `height`, with 8x8 of data. */
async function gifClaiming(width: number, height: number): Promise<Uint8Array> {
  const out = (await tiny("gif")).slice();
  const view = new DataView(out.buffer);
  view.setUint16(6, width, true);
  view.setUint16(8, height, true);
  // Skip the global colour table and any extension blocks to the image descriptor (0x2c).
  let at = 13 + (out[10] & 0x80 ? 3 * (2 << (out[10] & 7)) : 0);
  while (out[at] === 0x21) {
    at += 2;
    while (out[at] !== 0) at += out[at] + 1;
    at++;
  }
  if (out[at] !== 0x2c) throw new Error("GIF image descriptor not found");
  view.setUint16(at + 5, width, true);
  view.setUint16(at + 7, height, true);
  return out;
}

/** An AVIF whose image spatial extents box (ispe) says `width` x `height`. */
async function avifClaiming(width: number, height: number): Promise<Uint8Array> {
  const out = (await tiny("avif")).slice();
  const at = find(out, "ispe");
  if (at < 0) throw new Error("AVIF has no ispe box");
  new DataView(out.buffer).setUint32(at + 8, width);
  new DataView(out.buffer).setUint32(at + 12, height);
  return out;
}

/** A TIFF whose first IFD says `width` x `height` (tags 256, 257) over 8x8 of strips. */
async function tiffClaiming(width: number, height: number): Promise<Uint8Array> {
  const out = (await tiny("tiff")).slice();
  const view = new DataView(out.buffer);
  const little = out[0] === 0x49;
  const ifd = view.getUint32(4, little);
  for (let i = 0; i < view.getUint16(ifd, little); i++) {
    const entry = ifd + 2 + 12 * i;
    const tag = view.getUint16(entry, little);
    if (tag !== 256 && tag !== 257) continue;
    const value = tag === 256 ? width : height;
    if (view.getUint16(entry + 2, little) === 3) view.setUint16(entry + 8, value, little);
    else view.setUint32(entry + 8, value, little);
  }
  return out;
}

/** A named bomb: its bytes and what it would cost a decoder that trusted it. */
export interface Bomb {
  name: string;
  bytes: Uint8Array;
  /** The image itself is valid (the bomb sits in a chunk a renderer may ignore). */
  mayRender?: true;
}

/**
 * The bombs every decoder must refuse before paying for them (issue 16):
 * - PNG whose header says 800x480 but whose IDAT inflates to 256 MiB (a 384 KB image);
 * - PNG with a valid 800x480 image and an ICC profile chunk that inflates to 256 MiB (it may
 *   render, ignoring the profile, but not inflate it);
 * - PNG whose header says 7000x5000 16-bit RGBA (280 MB of samples) in a 1 KB file;
 * - JPEG whose frame says 4000x4000 with no scan data at all (the decoder invents it);
 * - BMP whose header says 6000x6000 with 100 bytes of pixels;
 * - WebP, GIF, AVIF and TIFF whose headers say 10000x10000 (100 megapixels) around 8x8 pixels of
 *   data: refused from the header (issue 12), before libvips decodes anything.
 */
export async function bombs(): Promise<Bomb[]> {
  const zeros = await zlibOfZeros(256 * MiB);
  const small = await zlibOfZeros(480 * 801);
  const iccp = concat([new TextEncoder().encode("icc"), Uint8Array.from([0, 0]), zeros]);
  return [
    { name: "PNG IDAT bomb", bytes: buildPng(ihdr(800, 480), [pngChunk("IDAT", zeros)]) },
    {
      name: "PNG iCCP bomb",
      bytes: buildPng(ihdr(800, 480), [pngChunk("iCCP", iccp), pngChunk("IDAT", small)]),
      mayRender: true,
    },
    {
      name: "PNG honest 16-bit RGBA header over the sample budget",
      bytes: buildPng(ihdr(7000, 5000, { depth: 16, colorType: 6 }), [pngChunk("IDAT", small)]),
    },
    { name: "JPEG frame without scan data", bytes: emptyJpeg(4000, 4000) },
    { name: "BMP header without its pixels", bytes: shortBmp(6000, 6000, 100) },
    { name: "WebP canvas of 100 megapixels", bytes: await webpClaiming(10000, 10000) },
    { name: "GIF screen of 100 megapixels", bytes: await gifClaiming(10000, 10000) },
    { name: "AVIF extents of 100 megapixels", bytes: await avifClaiming(10000, 10000) },
    { name: "TIFF IFD of 100 megapixels", bytes: await tiffClaiming(10000, 10000) },
  ];
}
