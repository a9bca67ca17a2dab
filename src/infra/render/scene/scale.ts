/**
 * SPEC 4.7 PNG scale rules: how a Scene's viewport maps onto a rendition's size.
 *
 * | case | rule |
 * | same aspect ratio (integer cross-multiplication) | uniform scale, no letterbox |
 * | different aspect ratio | scale by min(sx, sy), centred, background fills the letterbox |
 * | hardcode mode | anisotropic stretch filling the output exactly |
 */
import type { SceneMode } from "./types.ts";

/** Which rule applies, and where the Scene lands in the output (whole pixels). */
export interface ScalePlan {
  rule: "uniform" | "letterbox" | "stretch";
  /** The Scene's rectangle in output pixels; the rest is letterbox. */
  content: { x: number; y: number; width: number; height: number };
  /** Output pixels per viewport unit, across and down. */
  scaleX: number;
  scaleY: number;
}

/** Plans a rendition of a `viewport`-sized Scene at `output` size. */
export function planScale(
  viewport: { width: number; height: number },
  output: { width: number; height: number },
  mode: SceneMode = "auto",
): ScalePlan {
  const whole = { x: 0, y: 0, width: output.width, height: output.height };
  if (mode === "hardcode") {
    return {
      rule: "stretch",
      content: whole,
      scaleX: output.width / viewport.width,
      scaleY: output.height / viewport.height,
    };
  }
  // Integer cross-multiplication, so 800x480 → 1000x600 is "same aspect" exactly, no epsilon.
  if (viewport.width * output.height === output.width * viewport.height) {
    const scale = output.width / viewport.width;
    return { rule: "uniform", content: whole, scaleX: scale, scaleY: scale };
  }
  const widthLimits = output.width * viewport.height < output.height * viewport.width;
  // The limiting side fills the output exactly; the other is rounded to whole pixels.
  const width = widthLimits
    ? output.width
    : Math.max(1, Math.round((viewport.width * output.height) / viewport.height));
  const height = widthLimits
    ? Math.max(1, Math.round((viewport.height * output.width) / viewport.width))
    : output.height;
  return {
    rule: "letterbox",
    content: {
      x: Math.floor((output.width - width) / 2),
      y: Math.floor((output.height - height) / 2),
      width,
      height,
    },
    scaleX: width / viewport.width,
    scaleY: height / viewport.height,
  };
}
