/**
 * Recognises image files by their first bytes (issue 16): the content type the stores keep and
 * serve is the sniffed one, never the type an uploader declared, so an upload cannot pass off
 * SVG or HTML as an image. Nothing a browser would run is in this list.
 */

const SIGNATURES: Array<{ type: string; test: (b: Uint8Array) => boolean }> = [
  { type: "image/png", test: (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: "image/jpeg", test: (b) => starts(b, [0xff, 0xd8, 0xff]) },
  { type: "image/gif", test: (b) => starts(b, [0x47, 0x49, 0x46, 0x38]) },
  {
    type: "image/webp",
    test: (b) =>
      starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
  },
  // "BM", then a DIB header size BMP decoders know at 14 (two letters alone match text files).
  {
    type: "image/bmp",
    test: (b) =>
      starts(b, [0x42, 0x4d]) && b.length >= 18 &&
      [12, 40, 52, 56, 64, 108, 124].includes(b[14] | (b[15] << 8) | (b[16] << 16) | (b[17] << 24)),
  },
  // ISO-BMFF "ftyp" naming AVIF as its major or a compatible brand (issue 12); HEIC is not one.
  { type: "image/avif", test: isAvif },
  {
    type: "image/tiff",
    test: (b) => starts(b, [0x49, 0x49, 0x2a, 0x00]) || starts(b, [0x4d, 0x4d, 0x00, 0x2a]),
  },
];

function isAvif(b: Uint8Array): boolean {
  if (!starts(b.subarray(4), [0x66, 0x74, 0x79, 0x70])) return false;
  const size = Math.min((b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]) >>> 0, b.length);
  for (let at = 8; at + 4 <= size; at += at === 8 ? 8 : 4) {
    const brand = String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);
    if (brand === "avif" || brand === "avis") return true;
  }
  return false;
}

/** Bytes `sniffImageType` looks at. */
export const SNIFF_BYTES = 32;

function starts(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((v, i) => bytes[i] === v);
}

/** The image type of the first `SNIFF_BYTES` of a file, or null when they are no image we know. */
export function sniffImageType(bytes: Uint8Array): string | null {
  return SIGNATURES.find((s) => s.test(bytes))?.type ?? null;
}

/** Types a browser shows as a picture and never runs: the only ones served inline. */
export const INLINE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/bmp",
  "image/avif",
]);
