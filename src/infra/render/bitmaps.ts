/**
 * The whole custom-image render (SPEC 4.6 render stage): decode (upright, fitted inside 800x480
 * while decoding), grey, then the tone stage for a picture or the paper's light flattened for a
 * photo of paper (`paper.ts`), centre on white, dither, pack, PNG. The Piscina worker runs it off
 * the request loop; it reports failures as values because custom errors do not cross the thread
 * boundary.
 */
import { decodeImage, imageSize } from "./decode.ts";
import { type DitherKernel, ditherPacked, PHOTO_DITHER } from "./dither.ts";
import { toGrey } from "./grey.ts";
import type { Refusal } from "./limits.ts";
import { flattenPaper, type ImageMode, isDocument } from "./paper.ts";
import { encodePng1Bit } from "./png.ts";
import { tone } from "./tone.ts";
import { encodePng } from "./layout/png_encode.ts";
import {
  FRAME_HEIGHT,
  FRAME_WIDTH,
  type ImageFit,
  type PanelSpec,
  type PushBitmaps,
  uprightSize,
} from "./types.ts";

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
  /** A display's panel: its size and the grey depth of its PNG (CONTRACT.md). */
  panel?: PanelSpec;
  /**
   * `contain`: the whole picture, white bands beside or above it; `cover`: the frame filled, the
   * picture cropped at the centre. Default (`defaultFit`): cover for a picture whose shape is
   * close to the frame's, else contain; a document is never cropped unless asked (issue 34).
   */
  fit?: ImageFit;
}

/**
 * The default fit crops at most a quarter of the picture: a 4:3 or 3:2 camera photo or a 16:9
 * screenshot fills an 800x480 panel; a portrait photo, a panorama or a receipt is shown whole.
 */
export const COVER_MIN_KEPT = 0.75;

/** `cover` when covering the frame keeps at least `COVER_MIN_KEPT` of the picture. */
export function defaultFit(
  width: number,
  height: number,
  frame: { width: number; height: number },
): ImageFit {
  const picture = width / height;
  const panel = frame.width / frame.height;
  return Math.min(picture / panel, panel / picture) >= COVER_MIN_KEPT ? "cover" : "contain";
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

/** `picture` (width x height grey) centred on a white frame (800x480 unless a panel's). */
function centreOnWhite(
  picture: Uint8Array,
  width: number,
  height: number,
  frameWidth = FRAME_WIDTH,
  frameHeight = FRAME_HEIGHT,
): Uint8Array {
  if (width === frameWidth && height === frameHeight) return picture;
  const frame = new Uint8Array(frameWidth * frameHeight).fill(255);
  const left = (frameWidth - width) >> 1;
  const top = (frameHeight - height) >> 1;
  for (let y = 0; y < height; y++) {
    frame.set(picture.subarray(y * width, (y + 1) * width), (top + y) * frameWidth + left);
  }
  return frame;
}

/**
 * A panel's formats of its grey frame (laid out upright: `uprightSize`, turned by the panel's
 * rotation first): `png` a greyscale PNG of the panel's depth (1 bit from the 1 bpp rows, 2 bits
 * from the 4-level rows, 4 bits from a 16-level Floyd-Steinberg), `raw2` and `raw4` the 1 and
 * 2 bpp rows at the panel's size. `fixed` (upright, like the frame) marks pixels that keep their
 * nearest level, neither taking nor passing error (an HTML screen's text: `ditherPacked`).
 */
export function panelBitmaps(
  upright: Uint8Array,
  panel: PanelSpec,
  kernel: DitherKernel,
  fixed?: Uint8Array,
): PushBitmaps {
  const { width, height, bitDepth } = panel;
  const turn = (grey: Uint8Array) =>
    rotateGrey(grey, uprightSize(panel).width, panel.rotation ?? 0);
  const frame = turn(upright);
  const mask = fixed && turn(fixed);
  const { raw2, raw4 } = ditherPacked(frame, width, height, kernel, mask);
  const data = bitDepth === 1 ? raw2 : bitDepth === 2 ? raw4 : dither16(frame, width, height, mask);
  const png = encodePng({ width, height, channels: 1, depth: bitDepth, data, level: 6 });
  return { png, raw2, raw4 };
}

/**
 * A grey frame `width` wide turned `rotation` degrees clockwise (0: the frame itself). Turned
 * 90, its top row becomes the right column.
 */
export function rotateGrey(grey: Uint8Array, width: number, rotation: 0 | 90 | 180 | 270) {
  if (rotation === 0) return grey;
  const height = grey.length / width;
  const out = new Uint8Array(grey.length);
  if (rotation === 180) {
    for (let i = 0, n = grey.length; i < n; i++) out[n - 1 - i] = grey[i];
    return out;
  }
  // 90: (x, y) → (height - 1 - y, x); 270: (x, y) → (y, width - 1 - x); the result is `height` wide.
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const to = rotation === 90 ? x * height + (height - 1 - y) : (width - 1 - x) * height + y;
      out[to] = grey[row + x];
    }
  }
  return out;
}

/**
 * 16 grey levels by Floyd-Steinberg error diffusion, packed two pixels a byte (MSB first);
 * pixels `fixed` marks take their nearest level and pass no error on.
 */
function dither16(
  grey: Uint8Array,
  width: number,
  height: number,
  fixed?: Uint8Array,
): Uint8Array {
  const stride = (width + 1) >> 1;
  const out = new Uint8Array(stride * height);
  let line = new Float32Array(width + 2);
  let next = new Float32Array(width + 2);
  for (let y = 0; y < height; y++) {
    next.fill(0);
    for (let x = 0; x < width; x++) {
      const keep = fixed === undefined || fixed[y * width + x] === 0;
      const value = Math.min(255, Math.max(0, grey[y * width + x] + (keep ? line[x + 1] : 0)));
      const level = Math.round(value / 17);
      const error = keep ? value - level * 17 : 0;
      line[x + 2] += (error * 7) / 16;
      next[x] += (error * 3) / 16;
      next[x + 1] += (error * 5) / 16;
      next[x + 2] += error / 16;
      out[y * stride + (x >> 1)] |= (x & 1) === 0 ? level << 4 : level;
    }
    [line, next] = [next, line];
  }
  return out;
}

/** Renders an uploaded image into the three push formats. */
export async function renderImageBitmaps(
  source: Uint8Array,
  options: ImageRenderOptions = {},
): Promise<RenderResult> {
  const panel = options.panel;
  const box = panel ? uprightSize(panel) : { width: FRAME_WIDTH, height: FRAME_HEIGHT };
  const pack = (frame: Uint8Array, kernel: DitherKernel) =>
    panel ? panelBitmaps(frame, panel, kernel) : bitmapsFromFrame(frame, kernel);
  const mode = options.mode ?? "auto";
  let fit = options.fit;
  if (!fit) {
    const size = mode === "document" ? null : await imageSize(source);
    fit = size?.ok ? defaultFit(size.width, size.height, box) : "contain";
  }
  // Scaled (up or down) to the largest size of its aspect ratio inside the frame, on white; or
  // covering the frame, cropped at the centre.
  const decoded = await decodeImage(source, { box, flatten: true, cover: fit === "cover" });
  if (!decoded.ok) return decoded;
  const { width, height } = decoded;
  const grey = toGrey(decoded);
  // Both stages see the picture alone: white bands must not count as its white point or paper.
  if (mode !== "photo") {
    const decided = mode === "document" ? null : isDocument(grey, width, height);
    if ((!decided || decided.document) && fit === "cover" && !options.fit) {
      // A page, a receipt, a whiteboard: its edges may hold writing, so the default shows it
      // whole (decided again on the whole picture, as before `fit` existed).
      return await renderImageBitmaps(source, { ...options, fit: "contain" });
    }
    if (!decided || decided.document) {
      flattenPaper(grey, width, height, decided?.estimate);
      const frame = centreOnWhite(grey, width, height, box.width, box.height);
      return { ok: true, bitmaps: pack(frame, options.dither ?? DOCUMENT_DITHER) };
    }
  }
  const frame = centreOnWhite(tone(grey, width, height), width, height, box.width, box.height);
  return { ok: true, bitmaps: pack(frame, options.dither ?? PHOTO_DITHER) };
}
