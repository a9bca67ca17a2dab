/** Fit (contain) a grey image into the frame on a white background, with a separable resampler. */

/** Where the scaled image lands inside the frame. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The largest rectangle of the source's aspect ratio inside the frame, centred. */
export function containRect(
  sourceWidth: number,
  sourceHeight: number,
  frameWidth: number,
  frameHeight: number,
): Rect {
  const scale = Math.min(frameWidth / sourceWidth, frameHeight / sourceHeight);
  const width = Math.min(frameWidth, Math.max(1, Math.round(sourceWidth * scale)));
  const height = Math.min(frameHeight, Math.max(1, Math.round(sourceHeight * scale)));
  return {
    x: Math.floor((frameWidth - width) / 2),
    y: Math.floor((frameHeight - height) / 2),
    width,
    height,
  };
}

/** Per destination index: the source indexes it reads and their weights (summing to 1). */
interface Taps {
  index: Int32Array;
  weight: Float32Array;
  start: Int32Array;
}

/**
 * Downscaling averages the exact source span each destination pixel covers (area/box filter,
 * no aliasing from skipped pixels); upscaling interpolates linearly between pixel centres.
 */
function taps(source: number, target: number): Taps {
  const ratio = source / target;
  const indexes: number[] = [];
  const weights: number[] = [];
  const start = new Int32Array(target + 1);
  for (let d = 0; d < target; d++) {
    start[d] = indexes.length;
    if (ratio > 1) {
      const from = d * ratio;
      const to = from + ratio;
      for (let s = Math.floor(from); s < Math.min(source, Math.ceil(to)); s++) {
        const cover = Math.min(to, s + 1) - Math.max(from, s);
        if (cover > 1e-9) {
          indexes.push(s);
          weights.push(cover / ratio);
        }
      }
    } else {
      const centre = Math.min(source - 1, Math.max(0, (d + 0.5) * ratio - 0.5));
      const left = Math.floor(centre);
      const frac = centre - left;
      indexes.push(left);
      weights.push(1 - frac);
      if (frac > 0 && left + 1 < source) {
        indexes.push(left + 1);
        weights.push(frac);
      }
    }
  }
  start[target] = indexes.length;
  return { index: Int32Array.from(indexes), weight: Float32Array.from(weights), start };
}

/** Resamples 8-bit grey to `width` x `height` (rows first, then columns). */
export function resizeGrey(
  grey: Uint8Array,
  sourceWidth: number,
  sourceHeight: number,
  width: number,
  height: number,
): Uint8Array {
  if (sourceWidth === width && sourceHeight === height) return grey.slice();
  const across = taps(sourceWidth, width);
  const down = taps(sourceHeight, height);
  const rows = new Float32Array(width * sourceHeight);
  for (let y = 0; y < sourceHeight; y++) {
    const row = y * sourceWidth;
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let t = across.start[x]; t < across.start[x + 1]; t++) {
        sum += grey[row + across.index[t]] * across.weight[t];
      }
      rows[y * width + x] = sum;
    }
  }
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let t = down.start[y]; t < down.start[y + 1]; t++) {
        sum += rows[down.index[t] * width + x] * down.weight[t];
      }
      out[y * width + x] = Math.min(255, Math.max(0, Math.round(sum)));
    }
  }
  return out;
}

/** Scales the image to fit inside the frame keeping its aspect ratio, centred on white. */
export function fitOnWhite(
  grey: Uint8Array,
  sourceWidth: number,
  sourceHeight: number,
  frameWidth: number,
  frameHeight: number,
): Uint8Array {
  const rect = containRect(sourceWidth, sourceHeight, frameWidth, frameHeight);
  const scaled = resizeGrey(grey, sourceWidth, sourceHeight, rect.width, rect.height);
  const frame = new Uint8Array(frameWidth * frameHeight).fill(255);
  for (let y = 0; y < rect.height; y++) {
    const at = (rect.y + y) * frameWidth + rect.x;
    frame.set(scaled.subarray(y * rect.width, (y + 1) * rect.width), at);
  }
  return frame;
}
