/**
 * What a source image may cost the render pool (issue 16: decompression bombs). Every limit is
 * checked from the file's own header and structure before a decoder allocates for it.
 */

/** Sources whose header says more pixels are refused before decoding. */
export const MAX_SOURCE_PIXELS = 40_000_000;

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
 * jpeg-js's own memory accounting (coefficient blocks, component rows, output): enough for a
 * 24-megapixel 4:2:0 photo. It undercounts (each block is a separate Int32Array), so the real
 * cost is about 1.5 times this.
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
