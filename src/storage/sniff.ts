/** Recognises image files by their first bytes, so a confirm cannot smuggle other content. */

const SIGNATURES: Array<{ type: string; test: (b: Uint8Array) => boolean }> = [
  { type: "image/png", test: (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: "image/jpeg", test: (b) => starts(b, [0xff, 0xd8, 0xff]) },
  { type: "image/gif", test: (b) => starts(b, [0x47, 0x49, 0x46, 0x38]) },
  {
    type: "image/webp",
    test: (b) =>
      starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
  },
  { type: "image/bmp", test: (b) => starts(b, [0x42, 0x4d]) },
  {
    type: "image/tiff",
    test: (b) => starts(b, [0x49, 0x49, 0x2a, 0x00]) || starts(b, [0x4d, 0x4d, 0x00, 0x2a]),
  },
];

/** What the render pool decodes (docs/decisions.md, render): the rest would never render. */
export const RENDERABLE_TYPES = new Set(["image/png", "image/jpeg", "image/bmp"]);

function starts(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((v, i) => bytes[i] === v);
}

/** The image type of `bytes`, or null when they are not a recognised image. */
export function sniffImageType(bytes: Uint8Array): string | null {
  return SIGNATURES.find((s) => s.test(bytes))?.type ?? null;
}
