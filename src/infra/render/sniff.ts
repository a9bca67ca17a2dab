/** Reads an image's format and size from its header, before anything is decoded. */

/** What the header says; dimensions are known for PNG, JPEG and BMP. */
export interface ImageHeader {
  format: "png" | "jpeg" | "webp" | "gif" | "bmp" | "tiff" | "avif" | "heif";
  width?: number;
  height?: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (bytes[at + i] !== text.charCodeAt(i)) return false;
  }
  return true;
}

/** JPEG: walk the marker segments to the first start-of-frame (SOF0..SOF15 but DHT/JPG/DAC). */
function jpegSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = view.getUint16(at + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 &&
      marker !== 0xcc;
    if (isFrame) return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

/**
 * An ISO-BMFF `ftyp` box naming AVIF as its major or a compatible brand. Other HEIF files (HEIC
 * photos) need an HEVC decoder the render does not have.
 */
function isAvif(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = Math.min(view.getUint32(0), bytes.length, 256);
  for (let at = 8; at + 4 <= size; at += at === 8 ? 8 : 4) {
    if (ascii(bytes, at, "avif") || ascii(bytes, at, "avis")) return true;
  }
  return false;
}

/** Identifies the format by its magic bytes; undefined when it is no image format we know. */
export function sniffImage(bytes: Uint8Array): ImageHeader | undefined {
  if (bytes.length >= 24 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { format: "png", width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { format: "jpeg", ...jpegSize(bytes) };
  }
  if (bytes.length >= 12 && ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) {
    return { format: "webp" };
  }
  if (ascii(bytes, 0, "GIF8")) return { format: "gif" };
  if (bytes.length >= 26 && ascii(bytes, 0, "BM")) {
    // BITMAPINFOHEADER: signed 32-bit little-endian width and height (negative = top-down)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const width = Math.abs(view.getInt32(18, true));
    const height = Math.abs(view.getInt32(22, true));
    return { format: "bmp", width, height };
  }
  if (ascii(bytes, 0, "II*\0") || ascii(bytes, 0, "MM\0*")) return { format: "tiff" };
  if (bytes.length >= 16 && ascii(bytes, 4, "ftyp")) {
    return { format: isAvif(bytes) ? "avif" : "heif" };
  }
  return undefined;
}
