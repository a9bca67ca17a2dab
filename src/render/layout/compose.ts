/**
 * From a rendered RGBA frame to what an output needs: grey, RGB, or level indexes for the
 * e-ink formats, where text stays crisp and only pictures and grey fills are dithered.
 */
import { ditherFloydSteinberg } from "../dither.ts";
import type { RgbaFrame } from "./engine.ts";

/** Luma (BT.601, as the push pipeline's grey) of each pixel, composited onto white. */
export function rgbaToGrey(frame: RgbaFrame): Uint8Array {
  const { rgba, width, height } = frame;
  const out = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < out.length; i++, p += 4) {
    const luma = (299 * rgba[p] + 587 * rgba[p + 1] + 114 * rgba[p + 2]) / 1000;
    const alpha = rgba[p + 3];
    out[i] = alpha === 255
      ? Math.round(luma)
      : Math.round((luma * alpha + 255 * (255 - alpha)) / 255);
  }
  return out;
}

/** RGB, 3 bytes per pixel, composited onto white (SPEC 2.11 rule 4). */
export function rgbaToRgb(frame: RgbaFrame): Uint8Array {
  const { rgba, width, height } = frame;
  const out = new Uint8Array(width * height * 3);
  for (let i = 0, p = 0, q = 0; i < width * height; i++, p += 4, q += 3) {
    const alpha = rgba[p + 3];
    if (alpha === 255) {
      out[q] = rgba[p];
      out[q + 1] = rgba[p + 1];
      out[q + 2] = rgba[p + 2];
    } else {
      const white = 255 * (255 - alpha);
      out[q] = Math.round((rgba[p] * alpha + white) / 255);
      out[q + 1] = Math.round((rgba[p + 1] * alpha + white) / 255);
      out[q + 2] = Math.round((rgba[p + 2] * alpha + white) / 255);
    }
  }
  return out;
}

/**
 * Level indexes (0 = black … levels-1 = white) for a crisp-rendered grey frame. Pure black and
 * pure white pixels (glyphs, rules, borders: crisp rendering leaves their edges unblended) take
 * their level as they are; every other pixel (pictures, grey fills) is Floyd–Steinberg
 * dithered. So text is never dithered, and a frame without grey skips the dither altogether.
 */
export function composeLevels(
  grey: Uint8Array,
  width: number,
  height: number,
  levels: number,
): Uint8Array {
  const top = levels - 1;
  let mixed = false;
  for (let i = 0; i < grey.length; i++) {
    if (grey[i] !== 0 && grey[i] !== 255) {
      mixed = true;
      break;
    }
  }
  if (!mixed) return grey.map((v) => (v === 0 ? 0 : top));
  const out = ditherFloydSteinberg(grey, width, height, levels);
  // Error diffused out of a picture may flip a neighbouring glyph pixel: put pure ones back.
  for (let i = 0; i < grey.length; i++) {
    if (grey[i] === 0) out[i] = 0;
    else if (grey[i] === 255) out[i] = top;
  }
  return out;
}
