/** EXIF orientation: phones store photos sideways and say how to turn them (TIFF tag 274). */

/** A grey image with its size, as the orientation step hands it on. */
export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * For orientations 2..8, the source pixel of output (x, y) as sx = ax·x + bx·y + cx and
 * sy = ay·x + by·y + cy, where c is 1 when the offset is w-1 (for sx) or h-1 (for sy).
 */
const MAPS: Record<number, [number, number, number, number, number, number]> = {
  2: [-1, 0, 1, 0, 1, 0], // mirrored
  3: [-1, 0, 1, 0, -1, 1], // rotated 180°
  4: [1, 0, 0, 0, -1, 1], // flipped
  5: [0, 1, 0, 1, 0, 0], // transposed
  6: [0, 1, 0, -1, 0, 1], // needs 90° clockwise
  7: [0, -1, 1, -1, 0, 1], // transversed
  8: [0, -1, 1, 1, 0, 0], // needs 90° anticlockwise
};

/** Turns the stored pixels upright; orientation 1 or an unknown value leaves them as stored. */
export function orient(image: GreyImage, orientation: number): GreyImage {
  const map = MAPS[orientation];
  if (!map) return image;
  const { data, width: w, height: h } = image;
  const [ax, bx, cx, ay, by, cy] = map;
  const width = orientation >= 5 ? h : w;
  const height = orientation >= 5 ? w : h;
  // Source index = stepX·x + stepY·y + base, so each output row is a strided walk.
  const stepX = ax + ay * w;
  const stepY = bx + by * w;
  const base = cx * (w - 1) + cy * (h - 1) * w;
  const out = new Uint8Array(data.length);
  for (let y = 0, i = 0; y < height; y++) {
    let source = base + stepY * y;
    for (let x = 0; x < width; x++, i++, source += stepX) out[i] = data[source];
  }
  return { data: out, width, height };
}
