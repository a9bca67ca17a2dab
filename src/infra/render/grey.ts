/** Grey conversion of decoded pixels: luma (ITU-R BT.601) composited on white. */

/** Decoded 8-bit pixels, interleaved: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (alpha last). */
export interface Pixels8 {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

/**
 * 8-bit grey, one byte per pixel. Luma is 0.299 R + 0.587 G + 0.114 B in 1/65536ths (integer
 * arithmetic, rounded); transparent pixels are composited on white because the frame's
 * background is white.
 */
export function toGrey(pixels: Pixels8): Uint8Array {
  const { width, height, channels, data } = pixels;
  if (channels < 1 || channels > 4) throw new Error(`Unsupported channel count ${channels}`);
  const count = width * height;
  if (data.length < count * channels) throw new Error("Pixel data is shorter than its size");
  const out = new Uint8Array(count);
  if (channels === 1) {
    out.set(data.subarray(0, count));
    return out;
  }
  const alpha = channels === 2 || channels === 4;
  for (let i = 0, p = 0; i < count; i++, p += channels) {
    let luma = channels >= 3
      ? (19595 * data[p] + 38470 * data[p + 1] + 7471 * data[p + 2] + 32768) >> 16
      : data[p];
    if (alpha) {
      const a = data[p + channels - 1];
      luma = (luma * a + 255 * (255 - a) + 127) / 255 | 0;
    }
    out[i] = luma;
  }
  return out;
}
