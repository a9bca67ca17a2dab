/**
 * What a source image may cost the render pool (issue 16: decompression bombs). Every limit is
 * checked from the file's own header and structure before a decoder allocates for it.
 */

/** Sources whose header says more pixels are refused before decoding. */
export const MAX_SOURCE_PIXELS = 40_000_000;

/**
 * GIF and AVIF decoders hold the whole frame (and AVIF's AV1 decoder its reference frames)
 * before libvips can stream it: measured with sharp 0.35 on flat 4000x4000 files of 11 KB and
 * 428 B, ~94 MiB and ~270 MiB resident (17 bytes per pixel for AVIF; 36 megapixels cost
 * 590 MiB and a second). 16 megapixels still takes a 12-megapixel phone photo.
 */
export const MAX_WHOLE_FRAME_PIXELS = 16_000_000;

/** Source formats the render decodes (sniffed, never declared), in the order they are named. */
export const ACCEPTED_NAMES: ReadonlySet<string> = new Set([
  "png",
  "jpeg",
  "bmp",
  "webp",
  "gif",
  "avif",
  "tiff",
]);

/** The pixel limit of a source format. */
export function pixelLimitOf(format: string): number {
  return format === "gif" || format === "avif" ? MAX_WHOLE_FRAME_PIXELS : MAX_SOURCE_PIXELS;
}

/**
 * Decoded samples a decoder may hand over: 8-bit RGBA at the pixel limit. A 16-bit RGBA PNG is
 * therefore limited to 20 megapixels, since fast-png holds its samples (and inflated rows) at
 * once.
 */
export const MAX_DECODED_BYTES = 4 * MAX_SOURCE_PIXELS;

/**
 * Scans of one JPEG. Encoders write 1 (baseline) to about 10-20 (progressive); each scan walks
 * the whole frame again, so thousands of tiny scans are a CPU bomb in a small file.
 */
export const MAX_JPEG_SCANS = 100;

/**
 * A JPEG decoder's memory, as jpeg-js accounted it (coefficient blocks of a progressive frame,
 * component rows, output): enough for a 24-megapixel 4:2:0 photo. libjpeg-turbo holds the
 * same coefficients for a progressive JPEG, so the bound is kept for it.
 */
export const JPEG_DECODER_MEMORY_MB = 320;

/** Why an image cannot be rendered; retrying never helps with any of these. */
export type RenderFailureCode = "unsupported_format" | "undecodable" | "too_large";

/** A refusal as a value (custom errors do not cross the worker thread boundary). */
export interface Refusal {
  ok: false;
  code: RenderFailureCode;
  message: string;
}

/** Shorthand for a refusal. */
export function refuse(code: RenderFailureCode, message: string): Refusal {
  return { ok: false, code, message };
}

/**
 * Longest side of the preview sent to a vision model (the Messages API's sweet spot). Here, not in
 * inspect.ts, so the request thread's pool does not load sharp for a constant (issue 26).
 */
export const PREVIEW_MAX_SIDE = 1024;
