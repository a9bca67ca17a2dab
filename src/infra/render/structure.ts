/**
 * Whether an uploaded picture can be decoded, judged from its header and structure alone (issue
 * 25, finding 8): what upload confirm checks before it accepts a file. Nothing is inflated or
 * decoded, so it runs on the request loop: the work is linear in the file (at most 10 MB) and
 * allocates nothing per byte. The format is sniffed; PNG chunks, JPEG markers and BMP rows are
 * walked by the render's own guards (png_guard, jpeg_guard, bmp_guard); for WebP, GIF, AVIF and
 * TIFF the size is read where the format keeps it. Every size is held to the render's pixel limit
 * of its format. What only a decoder can see (a PNG whose image data inflates short, a corrupt
 * entropy-coded scan) is left to the render, which refuses it once, for good.
 */
import { guardBmp } from "./bmp_guard.ts";
import { guardJpeg } from "./jpeg_guard.ts";
import { ACCEPTED_NAMES, pixelLimitOf, type Refusal, refuse } from "./limits.ts";
import { walkPng } from "./png_guard.ts";
import { sniffImage } from "./sniff.ts";
import { RENDERABLE_NAMES } from "./types.ts";

/** A picture the render can be expected to decode: its format and header size. */
export interface SoundImage {
  ok: true;
  format: string;
  width: number;
  height: number;
}

type Size = { width: number; height: number } | string;

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/** Skips GIF data sub-blocks (a length byte, then that many bytes) to past the terminator. */
function skipSubBlocks(bytes: Uint8Array, at: number): number {
  while (at < bytes.length && bytes[at] !== 0) at += bytes[at] + 1;
  return at + 1;
}

/**
 * GIF: the logical screen (GIF 89a section 18), which libvips takes as the frame size, and the
 * blocks after it, which libvips reads to the end: a block cut short is refused ("unexpected end
 * of GIF source data"); a file ending before its trailer byte is not.
 */
function gifSize(bytes: Uint8Array): Size {
  if (bytes.length < 13 || !(ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a"))) {
    return "GIF header is truncated";
  }
  const colourTable = (flags: number) => flags & 0x80 ? 3 * (2 << (flags & 7)) : 0;
  let at = 13 + colourTable(bytes[10]);
  let images = 0;
  while (at < bytes.length && bytes[at] !== 0x3b) {
    if (bytes[at] === 0x21) at = skipSubBlocks(bytes, at + 2);
    else if (bytes[at] === 0x2c) {
      images++;
      at += 10 + colourTable(bytes[at + 9]);
      at = skipSubBlocks(bytes, at + 1); // after the LZW minimum code size
    } else break; // not a block: libvips stops reading here too
  }
  if (at > bytes.length) return "GIF is truncated";
  if (images === 0) return "GIF has no image";
  return { width: bytes[6] | (bytes[7] << 8), height: bytes[8] | (bytes[9] << 8) };
}

/** WebP: the first chunk after `RIFF....WEBP` is VP8 (lossy), VP8L (lossless) or VP8X. */
function webpSize(bytes: Uint8Array): Size {
  const u16 = (at: number) => bytes[at] | (bytes[at + 1] << 8);
  const u24 = (at: number) => u16(at) | (bytes[at + 2] << 16);
  // libwebp refuses a file shorter than its RIFF header says.
  if ((u24(4) | (bytes[7] << 24)) >>> 0 > bytes.length - 8) return "WebP is truncated";
  if (ascii(bytes, 12, "VP8 ") && bytes.length >= 30) {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) {
      return "WebP key frame has no start code";
    }
    return { width: u16(26) & 0x3fff, height: u16(28) & 0x3fff };
  }
  if (ascii(bytes, 12, "VP8L") && bytes.length >= 25) {
    if (bytes[20] !== 0x2f) return "WebP lossless header has no signature";
    const bits = (u24(21) | (bytes[24] << 24)) >>> 0;
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(bytes, 12, "VP8X") && bytes.length >= 30) {
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  return "WebP header is truncated or of an unknown kind";
}

/** TIFF: ImageWidth (256) and ImageLength (257) of the first IFD, SHORT or LONG. */
function tiffSize(bytes: Uint8Array): Size {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = bytes[0] === 0x49;
  if (bytes.length < 8) return "TIFF header is truncated";
  const ifd = view.getUint32(4, little);
  if (ifd < 8 || ifd + 2 > bytes.length) return "TIFF first IFD lies outside the file";
  const count = view.getUint16(ifd, little);
  if (ifd + 2 + 12 * count > bytes.length) return "TIFF first IFD runs past the end of the file";
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + 12 * i;
    const tag = view.getUint16(entry, little);
    if (tag !== 256 && tag !== 257) continue;
    const type = view.getUint16(entry + 2, little);
    const value = type === 3
      ? view.getUint16(entry + 8, little)
      : type === 4
      ? view.getUint32(entry + 8, little)
      : undefined;
    if (tag === 256) width = value;
    else height = value;
  }
  if (width === undefined || height === undefined) return "TIFF first IFD has no image size";
  return { width, height };
}

/** An ISO-BMFF box: where it starts, its header's length and its whole size. */
interface Box {
  at: number;
  header: number;
  size: number;
}

/** A four-letter code as a big-endian number (no string per box on a walk of many). */
const fourCc = (text: string) => [...text].reduce((n, c) => (n << 8 | c.charCodeAt(0)) >>> 0, 0);
const [META, IPRP, IPCO, ISPE] = ["meta", "iprp", "ipco", "ispe"].map(fourCc);

/** The boxes of `type` among the children of `parent`, skipping `skip` bytes (a FullBox's 4). */
function children(view: DataView, parent: Box, type: number, skip = 0): Box[] {
  const found: Box[] = [];
  const end = parent.at + parent.size;
  let at = parent.at + parent.header + skip;
  while (at + 8 <= end) {
    let size = view.getUint32(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) break;
      size = Number(view.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end) break;
    if (view.getUint32(at + 4) === type) found.push({ at, header, size });
    at += size;
  }
  return found;
}

/**
 * AVIF: the largest image spatial extents (`ispe`) under meta/iprp/ipco. libheif requires one
 * per image item; the largest is the whole picture (a grid's tiles and a thumbnail are smaller).
 */
function avifSize(bytes: Uint8Array): Size {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const file = { at: 0, header: 0, size: bytes.length };
  // The top-level boxes fill the file: one running past its end is a truncated file.
  for (let at = 0; at < bytes.length;) {
    const size = at + 8 <= bytes.length ? view.getUint32(at) : 0;
    const header = size === 1 ? 16 : 8;
    const whole = size === 1 && at + 16 <= bytes.length
      ? Number(view.getBigUint64(at + 8))
      : size === 0 && at + 8 <= bytes.length
      ? bytes.length - at
      : size;
    if (whole < header || at + whole > bytes.length) return "AVIF is truncated";
    at += whole;
  }
  let best: { width: number; height: number } | undefined;
  // meta is a FullBox: 4 bytes of version and flags before its children; so is ispe.
  for (const meta of children(view, file, META)) {
    for (const iprp of children(view, meta, IPRP, 4)) {
      for (const ipco of children(view, iprp, IPCO)) {
        for (const ispe of children(view, ipco, ISPE)) {
          if (ispe.size < ispe.header + 12) continue;
          const width = view.getUint32(ispe.at + ispe.header + 4);
          const height = view.getUint32(ispe.at + ispe.header + 8);
          if (!best || width * height > best.width * best.height) best = { width, height };
        }
      }
    }
  }
  return best ?? "AVIF has no image size (ispe)";
}

/** The header size of a format the guards do not walk. */
function sizeOf(bytes: Uint8Array, format: string): Size {
  switch (format) {
    case "gif":
      return gifSize(bytes);
    case "webp":
      return webpSize(bytes);
    case "tiff":
      return tiffSize(bytes);
    default:
      return avifSize(bytes);
  }
}

/**
 * Checks that `bytes` are a picture the render decodes, of a size within its format's limit:
 * `unsupported_format`, `undecodable` (a truncated or malformed header or structure) or
 * `too_large` otherwise.
 */
export function checkImageStructure(bytes: Uint8Array): SoundImage | Refusal {
  const header = sniffImage(bytes);
  if (!header || !ACCEPTED_NAMES.has(header.format)) {
    const found = header ? `${header.format.toUpperCase()} images are` : "The file is";
    return refuse("unsupported_format", `${found} not supported; use ${RENDERABLE_NAMES}`);
  }
  const { format } = header;
  let size: Size;
  if (format === "png") {
    const walk = walkPng(bytes);
    if (!walk.ok) return walk;
    size = walk.header;
  } else if (format === "jpeg") {
    const guard = guardJpeg(bytes);
    if (!guard.ok) return guard;
    size = guard.frame;
  } else if (format === "bmp") {
    const guard = guardBmp(bytes);
    if (!guard.ok) return guard;
    size = { width: header.width!, height: header.height! };
  } else {
    size = sizeOf(bytes, format);
  }
  if (typeof size === "string") return refuse("undecodable", size);
  const { width, height } = size;
  if (width === 0 || height === 0) return refuse("undecodable", "Image has no pixels");
  const limit = pixelLimitOf(format);
  if (width * height > limit) {
    return refuse("too_large", `Image of ${width}x${height} is over ${limit} pixels`);
  }
  return { ok: true, format, width, height };
}
