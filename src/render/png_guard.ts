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

/**
 * Checks a PNG's structure and the inflated size of its image data. Returns the PNG to decode
 * (signature, IHDR, PLTE, tRNS, IDAT, IEND: ancillary chunks such as iCCP are dropped, the
 * render ignores colour profiles and text) or why it is refused.
 */
export function guardPng(bytes: Uint8Array): { ok: true; png: Uint8Array } | Refusal {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kept: Uint8Array[] = [bytes.subarray(0, 8)];
  const idat: Uint8Array[] = [];
  let header: PngHeader | undefined;
  let hasPalette = false;
  let hasTransparency = false;
  let at = 8;
  while (at + 12 <= bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) {
      return refuse("undecodable", `PNG chunk ${type} runs past the end of the file`);
    }
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (!header && (type !== "IHDR" || length !== 13)) {
      return refuse("undecodable", "PNG does not start with its IHDR chunk");
    }
    if (type === "IEND") break;
    if (type === "IHDR") {
      if (header) return refuse("undecodable", "PNG has more than one IHDR chunk");
      const read = readHeader(data);
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
    if (type === "PLTE") hasPalette = true;
    if (type === "tRNS") hasTransparency = true;
    if (type === "IDAT") idat.push(data);
    if (["IHDR", "PLTE", "tRNS", "IDAT"].includes(type)) kept.push(bytes.subarray(at, end));
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
