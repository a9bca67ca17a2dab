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
 * - BMP whose header says 6000x6000 with 100 bytes of pixels.
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
  ];
}
