/**
 * From a rendered RGBA frame to what an output needs: grey, RGB, or level indexes for the
 * e-ink formats, where text stays crisp and only pictures and grey fills are dithered.
 */
import { type DitherKernel, ditherPacked, type Packed } from "../dither.ts";
import type { RgbaFrame } from "./engine.ts";

/**
 * Writes a frame's pixels into `target` (a canvas `targetWidth` wide, 1 byte per pixel for grey
 * or 3 for RGB) at (`left`, `top`), composited onto white (SPEC 2.11 rule 4). Grey is luma
 * (BT.601, as the push pipeline's grey) in fixed point: 0.299, 0.587, 0.114 in 1/65536ths, as
 * this runs on every pixel of every frame. Writing in place spares a letterboxed rendition a
 * second copy of its pixels.
 */
export function writePixels(
  frame: RgbaFrame,
  channels: 1 | 3,
  target: Uint8Array,
  targetWidth: number,
  left = 0,
  top = 0,
): void {
  const { rgba, width, height } = frame;
  for (let y = 0, p = 0; y < height; y++) {
    let q = ((top + y) * targetWidth + left) * channels;
    for (let x = 0; x < width; x++, p += 4, q += channels) {
      const alpha = rgba[p + 3];
      let r = rgba[p];
      let g = rgba[p + 1];
      let b = rgba[p + 2];
      if (alpha !== 255) {
        const white = 255 * (255 - alpha) + 127;
        r = ((r * alpha + white) / 255) | 0;
        g = ((g * alpha + white) / 255) | 0;
        b = ((b * alpha + white) / 255) | 0;
      }
      if (channels === 1) target[q] = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16;
      else {
        target[q] = r;
        target[q + 1] = g;
        target[q + 2] = b;
      }
    }
  }
}

/** Luma of each pixel, composited onto white (see `writePixels`). */
export function rgbaToGrey(frame: RgbaFrame): Uint8Array {
  const out = new Uint8Array(frame.width * frame.height);
  writePixels(frame, 1, out, frame.width);
  return out;
}

/** RGB, 3 bytes per pixel, composited onto white. */
export function rgbaToRgb(frame: RgbaFrame): Uint8Array {
  const out = new Uint8Array(frame.width * frame.height * 3);
  writePixels(frame, 3, out, frame.width);
  return out;
}

/**
 * The device formats of a crisp-rendered grey frame (`raw2`, `raw4`: see `ditherPacked`). Pure
 * black and pure white pixels (glyphs, rules, borders: crisp rendering leaves their edges
 * unblended) keep their level and neither take nor pass on error; every other pixel (pictures,
 * grey fills) is dithered with `kernel`. So text is never dithered and never speckled by a
 * neighbouring picture's error, and a frame without grey needs no diffusion at all.
 */
export function composePacked(
  grey: Uint8Array,
  width: number,
  height: number,
  kernel: DitherKernel,
): Packed {
  let mixed = false;
  for (let i = 0; i < grey.length; i++) {
    if (grey[i] !== 0 && grey[i] !== 255) {
      mixed = true;
      break;
    }
  }
  if (!mixed) return ditherPacked(grey, width, height, "threshold");
  const fixed = new Uint8Array(grey.length);
  for (let i = 0; i < grey.length; i++) fixed[i] = grey[i] === 0 || grey[i] === 255 ? 1 : 0;
  return ditherPacked(grey, width, height, kernel, fixed);
}
