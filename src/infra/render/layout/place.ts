/**
 * Where a picture lands in its box for each fit, and which part of the source shows. Pure
 * geometry, shared by template `<img>` boxes and Scene image elements: the caller crops and
 * resamples exactly the visible part, so nothing is embedded larger than it is drawn.
 */

/** A rectangle in layout units. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * How a picture fills its box. `contain`: whole picture, aspect kept, centred, the rest of the
 * box empty. `cover`: the box filled, aspect kept, centred, the overflow cropped. `fill` and
 * `stretch`: the box filled exactly, aspect not kept (CSS `object-fit: fill`; docs/render.md).
 */
export type Fit = "contain" | "cover" | "fill" | "stretch";

/** The drawn rectangle (layout units) and the source region (source pixels) shown in it. */
export interface Placement {
  dest: Box;
  crop: Box;
}

/** The intersection of two boxes, or undefined when they do not overlap. */
export function intersect(a: Box, b: Box): Box | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  if (right <= x || bottom <= y) return undefined;
  return { x, y, width: right - x, height: bottom - y };
}

/** The picture's rectangle for `fit` inside `box` (it may overflow the box for `cover`). */
export function fitted(source: { width: number; height: number }, box: Box, fit: Fit): Box {
  if (fit === "fill" || fit === "stretch") return box;
  const sx = box.width / source.width;
  const sy = box.height / source.height;
  const scale = fit === "cover" ? Math.max(sx, sy) : Math.min(sx, sy);
  const width = source.width * scale;
  const height = source.height * scale;
  return {
    x: box.x + (box.width - width) / 2,
    y: box.y + (box.height - height) / 2,
    width,
    height,
  };
}

/**
 * Places a picture: fitted into `box`, clipped to the box and to `clip` (the viewport), with
 * the matching source region. Undefined when nothing of it is visible.
 */
export function placePicture(
  source: { width: number; height: number },
  box: Box,
  fit: Fit,
  clip: Box = box,
): Placement | undefined {
  const drawn = fitted(source, box, fit);
  const visible = intersect(drawn, box);
  const dest = visible && intersect(visible, clip);
  if (!dest) return undefined;
  const kx = source.width / drawn.width;
  const ky = source.height / drawn.height;
  return {
    dest,
    crop: {
      x: (dest.x - drawn.x) * kx,
      y: (dest.y - drawn.y) * ky,
      width: dest.width * kx,
      height: dest.height * ky,
    },
  };
}
