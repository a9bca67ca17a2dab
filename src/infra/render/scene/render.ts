/**
 * A Scene v1 rendition (SPEC 2.11, 2.12, 4.7): the Scene is checked again, pictures are cut to
 * exactly the pixels they cover, the elements are laid out in viewport units and rasterised at
 * the rendition's size by the scale rule, then encoded as colour, grey or 1-bit PNG. Runs in the
 * render worker; failures are values (errors lose their fields crossing threads).
 */
import type { RenderFailureCode } from "../bitmaps.ts";
import { DITHER_KERNELS, PHOTO_DITHER } from "../dither.ts";
import { composePacked, writePixels } from "../layout/compose.ts";
import { layoutSvg, rasterise } from "../layout/engine.ts";
import {
  cropAndResize,
  loadPicture,
  type Picture,
  pictureDataUri,
  tonePicture,
} from "../layout/image.ts";
import { type Fit, placePicture } from "../layout/place.ts";
import { encodePng } from "../layout/png_encode.ts";
import { cssColour, luma } from "./colour.ts";
import { imageSize } from "../decode.ts";
import {
  drawingProblem,
  pictureProblem,
  pictureScales,
  type PictureSize,
  scaledSize,
} from "./budget.ts";
import { normaliseScene } from "./normalise.ts";
import { planScale } from "./scale.ts";
import { backgroundOf, type PlacedPicture, sceneTree } from "./tree.ts";
import type { SceneRenderRequest } from "../types.ts";
import { type ColorMode, SCENE_LIMITS, type SceneElement } from "./types.ts";

/** Why a rendition failed; never worth retrying. */
export type SceneFailureCode = "invalid_request" | RenderFailureCode;

/** A rendition outcome: the PNG, or a failure as a value. */
export type SceneRenderResult =
  | { ok: true; png: Uint8Array }
  | { ok: false; code: SceneFailureCode; message: string };

const COLOR_MODES = new Set<ColorMode>(["color", "grayscale", "monochrome"]);

function checkSize(input: SceneRenderRequest): string | undefined {
  const { width, height } = input;
  for (const [name, side] of [["width", width], ["height", height]] as const) {
    if (!Number.isInteger(side) || side < 1 || side > SCENE_LIMITS.maxSide) {
      return `Rendition ${name} must be an integer from 1 to ${SCENE_LIMITS.maxSide}`;
    }
  }
  const maxPixels = input.maxPixels || SCENE_LIMITS.maxPixels;
  if (width * height > maxPixels) return `Rendition ${width}x${height} is over ${maxPixels} pixels`;
  if (input.colorMode !== undefined && !COLOR_MODES.has(input.colorMode)) {
    return `Rendition colorMode ${String(input.colorMode)} is not color, grayscale or monochrome`;
  }
  if (input.dither !== undefined && !DITHER_KERNELS.includes(input.dither)) {
    return `Rendition dither ${String(input.dither)} is not ${DITHER_KERNELS.join(", ")}`;
  }
  return undefined;
}

/** A canvas of the output size, filled with the letterbox colour when the Scene leaves room. */
function canvas(size: number, fill: number[], letterboxed: boolean): Uint8Array {
  const out = new Uint8Array(size * fill.length);
  if (!letterboxed) return out;
  if (fill.every((v) => v === fill[0])) return out.fill(fill[0]);
  // One pixel, then doubling copies: a per-pixel `set` costs ~300 ms on a 4-megapixel canvas.
  out.set(fill);
  for (let filled = fill.length; filled < out.length; filled *= 2) {
    out.copyWithin(filled, 0, Math.min(filled, out.length - filled));
  }
  return out;
}

/** Renders one Scene rendition to PNG bytes. */
export async function renderScene(input: SceneRenderRequest): Promise<SceneRenderResult> {
  const sizeProblem = checkSize(input);
  if (sizeProblem) return { ok: false, code: "invalid_request", message: sizeProblem };
  const normalised = normaliseScene(input.scene, { maxPixels: input.maxPixels });
  if (!normalised.ok) return { ok: false, code: "invalid_request", message: normalised.message };
  const scene = normalised.scene;
  const colorMode = input.colorMode ?? "color";
  const monochrome = colorMode === "monochrome";
  const output = { width: input.width, height: input.height };
  const plan = planScale(scene.viewport, output, input.mode);
  const viewportBox = { x: 0, y: 0, ...scene.viewport };

  // The budgets (budget.ts) are checked before anything is decoded or drawn.
  const costly = drawingProblem(scene, plan);
  if (costly) return { ok: false, code: "invalid_request", message: costly };
  // Each file's size from its header; a file the caller could not resolve (deleted, not the
  // owner's) draws nothing, one that cannot be decoded fails the rendition.
  const images = input.images ?? {};
  const sizes = new Map<string, PictureSize>();
  for (const element of scene.elements) {
    const fileId = element.type === "image" ? element.properties?.fileId : undefined;
    if (typeof fileId !== "string" || sizes.has(fileId) || !Object.hasOwn(images, fileId)) {
      continue;
    }
    const size = await imageSize(images[fileId]);
    if (!size.ok) return size;
    sizes.set(fileId, size);
  }
  const scales = pictureScales(scene, plan, sizes);
  const overBudget = pictureProblem(sizes, scales);
  if (overBudget) return { ok: false, code: "invalid_request", message: overBudget };
  // Each file is decoded once, however many elements show it, no larger than its largest frame
  // needs; before layout, as the tree's picture hook is synchronous.
  const decoded = new Map<string, Picture>();
  for (const [fileId, scale] of scales) {
    const result = await loadPicture(images[fileId], {
      grey: colorMode !== "color",
      ...(scale < 1 ? { box: scaledSize(sizes.get(fileId)!, scale) } : {}),
    });
    if (!result.ok) return result;
    decoded.set(fileId, result.picture);
  }
  const picture = (element: SceneElement): PlacedPicture | undefined => {
    const props = element.properties ?? {};
    const source = decoded.get(props.fileId as string);
    if (!source || !element.frame) return undefined;
    const placed = placePicture(
      source,
      element.frame,
      (props.fit as Fit) ?? "contain",
      viewportBox,
    );
    if (!placed) return undefined;
    // Resampled to the output pixels it covers, so resvg draws it 1:1 (STACK.md: hot spot).
    const w = Math.max(1, Math.round(placed.dest.width * plan.scaleX));
    const h = Math.max(1, Math.round(placed.dest.height * plan.scaleY));
    const shown = cropAndResize(source, placed.crop, w, h);
    // 1-bit output: the picture is toned at the size it is shown (issue 12: the tone stage).
    return { src: pictureDataUri(monochrome ? tonePicture(shown) : shown), dest: placed.dest };
  };
  const tree = sceneTree(scene, { monochrome, picture });

  const background = backgroundOf(scene);
  const svg = await layoutSvg(tree, scene.viewport.width, scene.viewport.height);
  const frame = await rasterise(svg, {
    width: plan.content.width,
    height: plan.content.height,
    viewBox: scene.viewport,
    crisp: monochrome,
    background: cssColour(background),
  });
  const boxed = plan.rule === "letterbox";
  const pixels = output.width * output.height;
  const { x, y } = plan.content;
  if (colorMode === "color") {
    const data = canvas(pixels, [background.r, background.g, background.b], boxed);
    writePixels(frame, 3, data, output.width, x, y);
    return { ok: true, png: encodePng({ ...output, channels: 3, depth: 8, data }) };
  }
  const data = canvas(pixels, [Math.round(luma(background))], boxed);
  writePixels(frame, 1, data, output.width, x, y);
  if (colorMode === "grayscale") {
    return { ok: true, png: encodePng({ ...output, channels: 1, depth: 8, data }) };
  }
  const kernel = input.dither ?? PHOTO_DITHER;
  const { raw2 } = composePacked(data, output.width, output.height, kernel);
  return { ok: true, png: encodePng({ ...output, channels: 1, depth: 1, data: raw2 }) };
}
