/** Grey conversion of decoded pixels: luma (ITU-R BT.601) composited on white. */

/** Decoded pixels as a decoder hands them over: interleaved channels, alpha last. */
export interface RawPixels {
  width: number;
  height: number;
  /** 1 = grey, 2 = grey+alpha, 3 = RGB, 4 = RGBA. */
  channels: number;
  /** 255 for 8-bit samples, 65535 for 16-bit. */
  maxValue: number;
  data: ArrayLike<number>;
}

/**
 * 8-bit grey, one byte per pixel. Luma is 0.299 R + 0.587 G + 0.114 B; transparent pixels are
 * composited on white because the frame's background is white (fit/contain on white).
 */
export function toGrey(pixels: RawPixels): Uint8Array {
  const { width, height, channels, maxValue, data } = pixels;
  if (channels < 1 || channels > 4) throw new Error(`Unsupported channel count ${channels}`);
  const count = width * height;
  const out = new Uint8Array(count);
  const hasAlpha = channels === 2 || channels === 4;
  const scale = 255 / maxValue;
  for (let i = 0, p = 0; i < count; i++, p += channels) {
    let luma = channels >= 3
      ? (299 * data[p] + 587 * data[p + 1] + 114 * data[p + 2]) / 1000
      : data[p];
    if (hasAlpha) {
      const alpha = data[p + channels - 1] / maxValue;
      luma = luma * alpha + maxValue * (1 - alpha);
    }
    out[i] = Math.round(luma * scale);
  }
  return out;
}
