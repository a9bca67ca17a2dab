/**
 * A PNG checked before fast-png sees it (issue 16). fast-png inflates whatever the IDAT stream
 * holds and keeps all of it (a 1.5 MB file whose header says 800x480 inflated to 1.5 GiB), and
 * inflates an iCCP profile the same way. Here the image data is inflated once, streaming and
 * counted, and refused as soon as it passes what the header's size, bit depth and interlacing
 * allow; the decoder then gets a copy holding only the chunks it needs to draw the image.
 */
import { inflateSync } from "node:zlib";
import { MAX_DECODED_BYTES, MAX_SOURCE_PIXELS, type Refusal, refuse } from "./limits.ts";

/** Samples per pixel by colour type (PNG 11.2.2). */
const SAMPLES: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Allowed bit depths by colour type. */
const DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
/** Adam7 passes: first column, first row, column step, row step. */
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [
  0,
  1,
  1,
  2,
]];

/** What IHDR says, as far as sizes go. */
export interface PngHeader {
  width: number;
  height: number;
  depth: number;
  colorType: number;
  interlace: number;
}

/** Bytes of filtered scanlines the header allows: exactly what a conforming encoder writes. */
export function inflatedSize(h: PngHeader): number {
  const bitsPerPixel = h.depth * SAMPLES[h.colorType];
  const rows = (width: number, height: number) =>
    width > 0 && height > 0 ? height * (1 + Math.ceil((width * bitsPerPixel) / 8)) : 0;
  if (h.interlace === 0) return rows(h.width, h.height);
  return ADAM7.reduce(
    (sum, [x0, y0, dx, dy]) =>
      sum + rows(Math.ceil((h.width - x0) / dx), Math.ceil((h.height - y0) / dy)),
    0,
  );
}

/** Bytes the decoder hands over: palettes expand to RGB(A), 16-bit samples take 2 bytes. */
function decodedSize(h: PngHeader, hasTransparency: boolean): number {
  const pixels = h.width * h.height;
  if (h.colorType === 3) return pixels * (hasTransparency ? 4 : 3);
  return pixels * SAMPLES[h.colorType] * (h.depth === 16 ? 2 : 1);
}

/**
 * Inflates `parts` as one zlib stream and returns its size; throws "too much" once the output
 * passes `limit`. zlib (native) stops there: it inflates chunk by chunk and gives up at the cap,
 * so a bomb costs `limit` bytes and a millisecond (fflate's streaming inflate took 10x longer).
 */
function inflatedLength(parts: Uint8Array[], limit: number): number | "too much" {
  const stream = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    stream.set(part, at);
    at += part.length;
  }
  try {
    // maxOutputLength 0 is refused by zlib; a header allowing 0 bytes cannot occur (size >= 1).
    return inflateSync(stream, { maxOutputLength: Math.max(1, limit) }).length;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") return "too much";
    throw error;
  }
}

function readHeader(data: Uint8Array): PngHeader | string {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const h = {
    width: view.getUint32(0),
    height: view.getUint32(4),
    depth: data[8],
    colorType: data[9],
    interlace: data[12],
  };
  if (h.width === 0 || h.height === 0 || h.width > 0x7fffffff || h.height > 0x7fffffff) {
    return `PNG size ${h.width}x${h.height} is not valid`;
  }
  if (!DEPTHS[h.colorType]?.includes(h.depth)) {
    return `PNG colour type ${h.colorType} at ${h.depth} bits is not valid`;
  }
  if (data[10] !== 0 || data[11] !== 0 || h.interlace > 1) {
    return "PNG compression, filter or interlace method is not valid";
  }
  return h;
}

/** What the chunk walk found: the header and, when asked for, the chunks to keep. */
export interface PngLayout {
  ok: true;
  header: PngHeader;
  /** Signature, IHDR, PLTE, tRNS and IDAT chunks, in file order (empty unless kept). */
  kept: Uint8Array[];
  /** The IDAT chunks' data, one zlib stream (empty unless kept). */
  idat: Uint8Array[];
}

/**
 * Chunks a PNG may have. Encoders write image data in chunks of 8-64 KB (a 10 MB file: a few
 * hundred to a few thousand); 873,000 empty chunks fit in 10 MB (issue 25: the walk runs at
 * confirm).
 */
const MAX_PNG_CHUNKS = 100_000;

/** A chunk type as its four bytes, big-endian (no string per chunk on a walk of many). */
const chunkType = (text: string) => [...text].reduce((n, c) => (n << 8 | c.charCodeAt(0)) >>> 0, 0);
const [IHDR, PLTE, TRNS, IDAT, IEND] = ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"].map(chunkType);

/** The zlib header of the image data: deflate, a window PNG allows, no preset dictionary. */
function zlibHeaderProblem(first: number[]): string | undefined {
  if (first.length < 2) return "PNG has no image data";
  const [cmf, flg] = first;
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20) {
    return "PNG image data is not a valid zlib stream";
  }
  return undefined;
}

/**
 * Walks a PNG's chunks without inflating anything (issue 25: cheap enough for upload confirm):
 * IHDR first and valid, every chunk inside the file, the size within the pixel and decoded-byte
 * limits, a palette where one is needed, and image data that starts as a zlib stream. `keep`
 * collects the chunks the decoder needs (the guard); confirm allocates nothing per chunk.
 */
export function walkPng(bytes: Uint8Array, options: { keep?: boolean } = {}): PngLayout | Refusal {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kept: Uint8Array[] = [bytes.subarray(0, 8)];
  const idat: Uint8Array[] = [];
  /** The first two bytes of the image data: its zlib header. */
  const first: number[] = [];
  let header: PngHeader | undefined;
  let hasPalette = false;
  let hasTransparency = false;
  let at = 8;
  for (let chunks = 0; at + 12 <= bytes.length; chunks++) {
    if (chunks === MAX_PNG_CHUNKS) {
      return refuse("undecodable", `PNG has more than ${MAX_PNG_CHUNKS} chunks`);
    }
    const length = view.getUint32(at);
    const type = view.getUint32(at + 4);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) {
      const name = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
      return refuse("undecodable", `PNG chunk ${name} runs past the end of the file`);
    }
    if (!header && (type !== IHDR || length !== 13)) {
      return refuse("undecodable", "PNG does not start with its IHDR chunk");
    }
    if (type === IEND) break;
    if (type === IHDR) {
      if (header) return refuse("undecodable", "PNG has more than one IHDR chunk");
      const read = readHeader(bytes.subarray(at + 8, end - 4));
      if (typeof read === "string") return refuse("undecodable", read);
      header = read;
      const pixels = header.width * header.height;
      if (pixels > MAX_SOURCE_PIXELS) {
        return refuse(
          "too_large",
          `Image of ${header.width}x${header.height} is over ${MAX_SOURCE_PIXELS} pixels`,
        );
      }
    }
    if (type === PLTE) hasPalette = true;
    if (type === TRNS) hasTransparency = true;
    if (type === IDAT) {
      for (let i = at + 8; i < end - 4 && first.length < 2; i++) first.push(bytes[i]);
      if (options.keep) idat.push(bytes.subarray(at + 8, end - 4));
    }
    if (options.keep && (type === IHDR || type === PLTE || type === TRNS || type === IDAT)) {
      kept.push(bytes.subarray(at, end));
    }
    at = end;
  }
  if (!header) return refuse("undecodable", "PNG has no IHDR chunk");
  if (header.colorType === 3 && !hasPalette) {
    return refuse("undecodable", "Palette PNG has no PLTE chunk");
  }
  const decoded = decodedSize(header, hasTransparency);
  if (decoded > MAX_DECODED_BYTES) {
    return refuse(
      "too_large",
      `Image of ${header.width}x${header.height} at ${header.depth} bits decodes to ${decoded} bytes, over ${MAX_DECODED_BYTES}`,
    );
  }
  const problem = zlibHeaderProblem(first);
  if (problem) return refuse("undecodable", problem);
  return { ok: true, header, kept, idat };
}

/**
 * Checks a PNG's structure and the inflated size of its image data. Returns the PNG to decode
 * (signature, IHDR, PLTE, tRNS, IDAT, IEND: ancillary chunks such as iCCP are dropped, the
 * render ignores colour profiles and text) or why it is refused.
 */
export function guardPng(bytes: Uint8Array): { ok: true; png: Uint8Array } | Refusal {
  const layout = walkPng(bytes, { keep: true });
  if (!layout.ok) return layout;
  const { header, kept, idat } = layout;
  const expected = inflatedSize(header);
  let inflated: number | "too much";
  try {
    inflated = inflatedLength(idat, expected);
  } catch {
    return refuse("undecodable", "PNG image data is not a valid zlib stream");
  }
  if (inflated === "too much") {
    return refuse(
      "too_large",
      `Image data inflates past the ${expected} bytes its ${header.width}x${header.height} header allows`,
    );
  }
  if (inflated < expected) {
    return refuse("undecodable", `PNG image data is truncated (${inflated} of ${expected} bytes)`);
  }
  const iend = Uint8Array.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
  kept.push(iend);
  const png = new Uint8Array(kept.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of kept) {
    png.set(part, offset);
    offset += part.length;
  }
  return { ok: true, png };
}
