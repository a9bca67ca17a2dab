/** Floyd–Steinberg error diffusion from 8-bit grey to N evenly spaced grey levels. */

/**
 * Returns one level index per pixel, 0 = black … `levels - 1` = white. Level k stands for grey
 * 255·k/(levels-1) (2 levels: 0, 255; 4 levels: 0, 85, 170, 255). Each pixel takes the nearest
 * level (ties round up, towards white) and passes its error on, left-to-right, top-to-bottom:
 * 7/16 right, 3/16 below-left, 5/16 below, 1/16 below-right. Errors falling off the edge are lost.
 */
export function ditherFloydSteinberg(
  grey: Uint8Array,
  width: number,
  height: number,
  levels: number,
): Uint8Array {
  if (grey.length !== width * height) {
    throw new Error(`Grey buffer of ${grey.length} bytes is not ${width}x${height}`);
  }
  const steps = levels - 1;
  const step = 255 / steps;
  const work = Float32Array.from(grey);
  const out = new Uint8Array(grey.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const last = y === height - 1;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      const value = Math.min(255, Math.max(0, work[i]));
      const level = Math.floor(value / step + 0.5);
      out[i] = level;
      const error = value - level * step;
      if (error === 0) continue;
      if (x + 1 < width) work[i + 1] += error * 7 / 16;
      if (last) continue;
      if (x > 0) work[i + width - 1] += error * 3 / 16;
      work[i + width] += error * 5 / 16;
      if (x + 1 < width) work[i + width + 1] += error * 1 / 16;
    }
  }
  return out;
}
