/**
 * What one Scene render may cost (issue 25, CONTRACT "Render budgets"), decided from the Scene and
 * the pictures' headers before anything is decoded or drawn:
 * - drawing cost: the output pixels each element paints, weighted by what painting them costs
 *   (a stroke ~45x a fill, measured with resvg 2.6 and satori on this pipeline), plus a cost per
 *   character of text (satori lays out every glyph, ~50 µs each);
 * - decoded pictures: each picture is decoded no larger than the largest frame that shows it
 *   needs at the output size (never enlarged), and all of them together stay under a pixel
 *   budget, so a Scene of many huge pictures is refused, not held in memory.
 */
import { type Box, fitted, intersect } from "../layout/place.ts";
import type { ScalePlan } from "./scale.ts";
import type { SceneData, SceneElement } from "./types.ts";

/** Drawing cost units are about a nanosecond of render time on the reference machine. */
export const DRAWING_BUDGET = 4_000_000_000;
/** Cost of one output pixel painted by a fill or a picture. */
const FILL_COST = 1;
/** Cost of one output pixel covered by a stroke (measured: ~45x a fill). */
const STROKE_COST = 45;
/** Cost of one character of text, whatever its size (measured: ~50 µs per character). */
const CHARACTER_COST = 50_000;

/**
 * Decoded picture pixels of one render, all pictures together: at most 4 bytes a pixel (RGBA
 * planes) makes 256 MiB, half of CONTRACT's "about 512 MiB", leaving room for the decoder's own
 * buffers and the resampled copies.
 */
export const MAX_DECODED_PICTURE_PIXELS = 64_000_000;

/** The part of `frame` (viewport units) that is drawn, in output pixels. */
function visibleOutputArea(frame: Box, viewport: Box, plan: ScalePlan): number {
  const visible = intersect(frame, viewport);
  if (!visible) return 0;
  return visible.width * plan.scaleX * visible.height * plan.scaleY;
}

function elementCost(element: SceneElement, viewport: Box, plan: ScalePlan): number {
  const { frame, properties = {} } = element;
  if (!frame) return 0;
  if (element.type === "text") {
    return typeof properties.text === "string" ? properties.text.length * CHARACTER_COST : 0;
  }
  const area = visibleOutputArea(frame, viewport, plan);
  if (element.type !== "shape") return area * FILL_COST;
  const half = Math.min(frame.width, frame.height) / 2;
  const stroke = Math.min(Number(properties.strokeWidth) || 0, half);
  if (stroke <= 0 || properties.strokeColor === null) return area * FILL_COST;
  // The stroke is a band inside the frame: its share of the frame, at most all of it.
  const band = Math.min(
    1,
    (2 * stroke * (frame.width + frame.height)) / (frame.width * frame.height),
  );
  return area * (FILL_COST + STROKE_COST * band);
}

/** The Scene's drawing cost at the planned output size. */
export function drawingCost(scene: SceneData, plan: ScalePlan): number {
  const viewport = { x: 0, y: 0, ...scene.viewport };
  let cost = 0;
  for (const element of scene.elements) cost += elementCost(element, viewport, plan);
  return cost;
}

/** Why a Scene is over its drawing budget, or undefined when it is within it. */
export function drawingProblem(scene: SceneData, plan: ScalePlan): string | undefined {
  const cost = drawingCost(scene, plan);
  if (cost <= DRAWING_BUDGET) return undefined;
  return `Scene is too costly to draw at this size (${
    Math.ceil(cost / DRAWING_BUDGET * 100)
  }% of the budget): use fewer or smaller elements, thinner strokes or less text`;
}

/** A picture's upright size from its header. */
export interface PictureSize {
  width: number;
  height: number;
}

/**
 * How large each picture must be decoded: the scale (at most 1) that gives every element showing
 * it at least one source pixel per output pixel. Keyed by file id.
 */
export function pictureScales(
  scene: SceneData,
  plan: ScalePlan,
  sizes: ReadonlyMap<string, PictureSize>,
): Map<string, number> {
  const scales = new Map<string, number>();
  for (const element of scene.elements) {
    const fileId = element.type === "image" ? element.properties?.fileId : undefined;
    if (typeof fileId !== "string" || !element.frame) continue;
    const size = sizes.get(fileId);
    if (!size) continue;
    const fit = (element.properties?.fit as "contain" | "cover" | "fill" | "stretch") ??
      "contain";
    const drawn = fitted(size, element.frame, fit);
    // Output pixels per source pixel on each axis; the larger decides.
    const need = Math.max(
      (drawn.width * plan.scaleX) / size.width,
      (drawn.height * plan.scaleY) / size.height,
    );
    scales.set(fileId, Math.min(1, Math.max(scales.get(fileId) ?? 0, need)));
  }
  return scales;
}

/** The decode size of a picture at `scale` (whole pixels, at least 1). */
export function scaledSize(size: PictureSize, scale: number): PictureSize {
  return {
    width: Math.max(1, Math.ceil(size.width * scale)),
    height: Math.max(1, Math.ceil(size.height * scale)),
  };
}

/** Why the pictures are over the decode budget, or undefined. */
export function pictureProblem(
  sizes: ReadonlyMap<string, PictureSize>,
  scales: ReadonlyMap<string, number>,
): string | undefined {
  let pixels = 0;
  for (const [fileId, scale] of scales) {
    const { width, height } = scaledSize(sizes.get(fileId)!, scale);
    pixels += width * height;
  }
  if (pixels <= MAX_DECODED_PICTURE_PIXELS) return undefined;
  const mp = (n: number) => `${Math.round(n / 1e6)} megapixels`;
  return `Scene's pictures need ${mp(pixels)} decoded at this size, over the budget of ${
    mp(MAX_DECODED_PICTURE_PIXELS)
  }: use fewer or smaller pictures, or smaller frames`;
}
