/**
 * An HTML screen's screenshot into a panel's push formats (CONTRACT.md "Screens that keep
 * themselves current": text and rules crisp, pictures dithered). Everything outside the picture
 * boxes goes to its nearest level and neither takes nor passes error, so a glyph's edge is never
 * speckled; on a 1-bit panel it first goes through a curve that darkens anti-aliased edges, so
 * thin strokes stay whole. Only the picture boxes (img, canvas, svg, video, background images,
 * measured in the page after layout) are error-diffused. Then rotated and packed like any panel
 * render (`panelBitmaps`).
 */
import sharp from "sharp";
import { panelBitmaps, type RenderResult } from "./bitmaps.ts";
import { PHOTO_DITHER } from "./dither.ts";
import { refuse } from "./limits.ts";
import { type ScreenRenderRequest, uprightSize } from "./types.ts";

/**
 * Text at 1 bit: grey g becomes 255·(g/255)^1.6, so an edge pixel darker than ~166 turns black
 * (a plain threshold at 128 thinned 16px body text to broken strokes). Flat fills in the
 * stylesheet are pure black, white or 1-bit patterns, which the curve leaves as they are.
 */
const TEXT_CURVE_1BIT = Uint8Array.from(
  { length: 256 },
  (_, g) => Math.round(255 * Math.pow(g / 255, 1.6)),
);

/**
 * The mask `ditherPacked` takes: 1 where a pixel keeps its level (everything but pictures), 0
 * inside a picture box (clipped to the frame).
 */
export function crispMask(
  width: number,
  height: number,
  pictures: ScreenRenderRequest["pictures"],
): Uint8Array {
  const mask = new Uint8Array(width * height).fill(1);
  for (const box of pictures) {
    const left = Math.max(0, Math.floor(box.x));
    const top = Math.max(0, Math.floor(box.y));
    const right = Math.min(width, Math.ceil(box.x + box.width));
    const bottom = Math.min(height, Math.ceil(box.y + box.height));
    for (let y = top; y < bottom; y++) mask.fill(0, y * width + left, y * width + right);
  }
  return mask;
}

/** Renders a screenshot (a PNG of the page laid out upright) into the panel's formats. */
export async function renderScreenBitmaps(request: ScreenRenderRequest): Promise<RenderResult> {
  const { width, height } = uprightSize(request.panel);
  let grey: Uint8Array;
  try {
    const { data, info } = await sharp(request.screenshot)
      .flatten({ background: "#ffffff" })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.width !== width || info.height !== height || info.channels !== 1) {
      return refuse(
        "undecodable",
        `Screenshot is ${info.width}x${info.height}, not the panel's ${width}x${height}`,
      );
    }
    grey = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    return refuse("undecodable", `Screenshot could not be decoded: ${(error as Error).message}`);
  }
  const fixed = crispMask(width, height, request.pictures);
  if (request.panel.bitDepth === 1) {
    for (let i = 0; i < grey.length; i++) if (fixed[i]) grey[i] = TEXT_CURVE_1BIT[grey[i]];
  }
  return {
    ok: true,
    bitmaps: panelBitmaps(grey, request.panel, request.dither ?? PHOTO_DITHER, fixed),
  };
}
