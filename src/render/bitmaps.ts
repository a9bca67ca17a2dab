/**
 * The whole custom-image render (SPEC 4.6 render stage): decode (upright, fitted inside 800x480
 * while decoding), grey, then the tone stage for a picture or the paper's light flattened for a
 * photo of paper (`paper.ts`), centre on white, dither, pack, PNG. The Piscina worker runs it off
 * the request loop; it reports failures as values because custom errors do not cross the thread
 * boundary.
 */
import { decodeImage } from "./decode.ts";
import { type DitherKernel, ditherPacked, PHOTO_DITHER } from "./dither.ts";
import { toGrey } from "./grey.ts";
import type { Refusal } from "./limits.ts";
import { flattenPaper, type ImageMode, isDocument } from "./paper.ts";
import { encodePng1Bit } from "./png.ts";
import { tone } from "./tone.ts";
import { FRAME_HEIGHT, FRAME_WIDTH, type PushBitmaps } from "./types.ts";

export { MAX_SOURCE_PIXELS, type RenderFailureCode } from "./limits.ts";

export type RenderResult = { ok: true; bitmaps: PushBitmaps } | Refusal;

/** How an uploaded picture is rendered (issue 12: a choice of error diffusion per push). */
export interface ImageRenderOptions {
  /** Default `PHOTO_DITHER`. */
  dither?: DitherKernel;
  /**
   * `document` flattens the paper's light and thresholds (unless `dither` says otherwise);
   * `photo` is the tone stage and `dither`; `auto` (default) decides from the picture.
   */
  mode?: ImageMode;
}

/** The kernel of a document unless the push chose one: strokes stay whole, paper stays clean. */
export const DOCUMENT_DITHER: DitherKernel = "threshold";

/**
 * The three push formats of an 800x480 grey frame. `image.png` and `image2.raw` share the 1 bpp
 * rows; `image4.raw` is the 4-level dither of the same frame with the same kernel. `fixed` marks
 * pixels that keep their level (a layout's text, see `ditherPacked`).
 */
export function bitmapsFromFrame(
  frame: Uint8Array,
  kernel: DitherKernel,
  fixed?: Uint8Array,
): PushBitmaps {
  const { raw2, raw4 } = ditherPacked(frame, FRAME_WIDTH, FRAME_HEIGHT, kernel, fixed);
  return { png: encodePng1Bit(raw2, FRAME_WIDTH, FRAME_HEIGHT), raw2, raw4 };
}

/** `picture` (width x height grey) centred on a white 800x480 frame. */
function centreOnWhite(picture: Uint8Array, width: number, height: number): Uint8Array {
  if (width === FRAME_WIDTH && height === FRAME_HEIGHT) return picture;
  const frame = new Uint8Array(FRAME_WIDTH * FRAME_HEIGHT).fill(255);
  const left = (FRAME_WIDTH - width) >> 1;
  const top = (FRAME_HEIGHT - height) >> 1;
  for (let y = 0; y < height; y++) {
    frame.set(picture.subarray(y * width, (y + 1) * width), (top + y) * FRAME_WIDTH + left);
  }
  return frame;
}

/** Renders an uploaded image into the three push formats. */
export async function renderImageBitmaps(
  source: Uint8Array,
  options: ImageRenderOptions = {},
): Promise<RenderResult> {
  // Scaled (up or down) to the largest size of its aspect ratio inside the frame, on white.
  const decoded = await decodeImage(source, {
    box: { width: FRAME_WIDTH, height: FRAME_HEIGHT },
    flatten: true,
  });
  if (!decoded.ok) return decoded;
  const { width, height } = decoded;
  const grey = toGrey(decoded);
  const mode = options.mode ?? "auto";
  // Both stages see the picture alone: white bands must not count as its white point or paper.
  if (mode !== "photo") {
    const decided = mode === "document" ? null : isDocument(grey, width, height);
    if (!decided || decided.document) {
      flattenPaper(grey, width, height, decided?.estimate);
      const frame = centreOnWhite(grey, width, height);
      return { ok: true, bitmaps: bitmapsFromFrame(frame, options.dither ?? DOCUMENT_DITHER) };
    }
  }
  const frame = centreOnWhite(tone(grey, width, height), width, height);
  return { ok: true, bitmaps: bitmapsFromFrame(frame, options.dither ?? PHOTO_DITHER) };
}
