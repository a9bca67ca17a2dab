/**
 * A push template rendered into the push formats (CONTRACT.md: Content pipeline): variables
 * checked against the schema, Liquid → HTML → satori tree → SVG → resvg (crisp, no
 * anti-aliasing) → grey → text kept black and white, photos and grey fills dithered → packed.
 * Runs in the render worker; failures are values because errors lose their fields there.
 */
import type { RenderFailureCode } from "../bitmaps.ts";
import { PHOTO_DITHER } from "../dither.ts";
import { layoutBitmaps } from "../layout/bitmaps.ts";
import { rgbaToGrey } from "../layout/compose.ts";
import { layoutSvg, rasterise } from "../layout/engine.ts";
import { FONT_FAMILY } from "../layout/fonts.ts";
import { panelBitmaps } from "../bitmaps.ts";
import { htmlToTree, type ResolvedImage } from "../layout/html.ts";
import {
  cropAndResize,
  loadPicture,
  type Picture,
  pictureDataUri,
  tonePicture,
} from "../layout/image.ts";
import { type Fit, placePicture } from "../layout/place.ts";
import {
  FRAME_HEIGHT,
  FRAME_WIDTH,
  type PanelSpec,
  type PushBitmaps,
  type TemplateRenderRequest,
  uprightSize,
} from "../types.ts";
import { renderLiquid } from "./liquid.ts";
import type { TemplateRegistry } from "./registry.ts";

/** Why a template render failed: never worth retrying. */
export type TemplateFailureCode = "not_found" | "invalid_request" | RenderFailureCode;

/** A failure as a value. */
export interface TemplateFailure {
  ok: false;
  code: TemplateFailureCode;
  message: string;
}

/** The style of the frame every template draws in: 800x480, white, black Noto Sans. */
const ROOT_STYLE = {
  width: FRAME_WIDTH,
  height: FRAME_HEIGHT,
  backgroundColor: "#ffffff",
  color: "#000000",
  fontFamily: FONT_FAMILY,
  fontSize: 24,
  lineHeight: 1.3,
  flexDirection: "column",
  // A word wider than its box (a URL, a long German compound) breaks instead of spilling.
  wordBreak: "break-word",
} as const;

const FITS = new Set<Fit>(["contain", "cover", "fill", "stretch"]);

/**
 * The layout box of a panel: 800 wide (or 480 high, whichever scales less) with the panel's
 * aspect, so a template keeps its type sizes relative to the panel and fills it without bands;
 * the layout is then rasterised at the panel's pixels.
 */
export function layoutBox(panel?: PanelSpec): { width: number; height: number } {
  if (!panel) return { width: FRAME_WIDTH, height: FRAME_HEIGHT };
  const upright = uprightSize(panel);
  const scale = Math.min(upright.width / FRAME_WIDTH, upright.height / FRAME_HEIGHT);
  return {
    width: Math.max(1, Math.round(upright.width / scale)),
    height: Math.max(1, Math.round(upright.height / scale)),
  };
}

/** Lays a template out: its frame (800x480, or a panel's layout box) as SVG, before rasterising. */
export async function renderTemplateSvg(
  registry: TemplateRegistry,
  input: TemplateRenderRequest,
): Promise<{ ok: true; svg: string } | TemplateFailure> {
  const frame = layoutBox(input.panel);
  const template = registry.get(input.name);
  if (!template) {
    return { ok: false, code: "not_found", message: `Template ${input.name} not found` };
  }
  const checked = (await registry.check(input.name, input.variables))!;
  if (!checked.ok) return { ok: false, code: "invalid_request", message: checked.message };
  const images = input.images ?? {};
  for (const name of template.imageVariables) {
    const fileId = checked.variables[name];
    if (typeof fileId === "string" && fileId && !Object.hasOwn(images, fileId)) {
      return {
        ok: false,
        code: "invalid_request",
        message: `Variable ${name}: image ${fileId} was not provided`,
      };
    }
  }
  // Pictures are decoded before layout (the layout's image hook is synchronous).
  const pictures = new Map<string, Picture>();
  for (const name of template.imageVariables) {
    const fileId = checked.variables[name];
    if (typeof fileId !== "string" || !fileId || pictures.has(fileId)) continue;
    const decoded = await loadPicture(images[fileId], { grey: true });
    if (!decoded.ok) return decoded;
    pictures.set(fileId, decoded.picture);
  }
  const html = renderLiquid(
    template.markup,
    checked.variables,
    input.now ?? new Date().toISOString(),
  );
  const resolveImage = (
    src: string,
    box: { width?: number; height?: number; fit?: string },
  ): ResolvedImage | undefined => {
    // Only the pictures of image variables: no other src (a URL, a path) is ever embedded.
    const picture = pictures.get(src);
    if (!picture) return undefined;
    const width = Math.min(box.width ?? frame.width, frame.width);
    const height = Math.min(box.height ?? frame.height, frame.height);
    const given = box.width !== undefined && box.height !== undefined;
    // A box with one side or none keeps the picture's aspect (contain); CSS's default is fill.
    const fit = given ? (FITS.has(box.fit as Fit) ? box.fit as Fit : "fill") : "contain";
    const placed = placePicture(picture, { x: 0, y: 0, width, height }, fit);
    if (!placed) return undefined;
    const w = Math.max(1, Math.round(placed.dest.width));
    const h = Math.max(1, Math.round(placed.dest.height));
    // 1-bit output: the picture is toned at the size it is shown (issue 12: the tone stage).
    const shown = tonePicture(cropAndResize(picture, placed.crop, w, h));
    return { src: pictureDataUri(shown), width: w, height: h };
  };
  const tree = htmlToTree(html, { ...ROOT_STYLE, ...frame }, { resolveImage });
  return { ok: true, svg: await layoutSvg(tree, frame.width, frame.height) };
}

/** Renders a template to the 800x480 grey frame the push formats are made from. */
export async function renderTemplateGrey(
  registry: TemplateRegistry,
  input: TemplateRenderRequest,
): Promise<{ ok: true; grey: Uint8Array } | TemplateFailure> {
  const laidOut = await renderTemplateSvg(registry, input);
  if (!laidOut.ok) return laidOut;
  const panel = input.panel;
  const frame = await rasterise(laidOut.svg, {
    ...(panel ? uprightSize(panel) : { width: FRAME_WIDTH, height: FRAME_HEIGHT }),
    ...(panel ? { viewBox: layoutBox(panel) } : {}),
    crisp: true,
  });
  return { ok: true, grey: rgbaToGrey(frame) };
}

/** Renders a template into the three push formats (png, raw2, raw4). */
export async function renderTemplateBitmaps(
  registry: TemplateRegistry,
  input: TemplateRenderRequest,
): Promise<{ ok: true; bitmaps: PushBitmaps } | TemplateFailure> {
  const result = await renderTemplateGrey(registry, input);
  if (!result.ok) return result;
  const kernel = input.dither ?? PHOTO_DITHER;
  if (input.panel) return { ok: true, bitmaps: panelBitmaps(result.grey, input.panel, kernel) };
  return { ok: true, bitmaps: layoutBitmaps(result.grey, FRAME_WIDTH, FRAME_HEIGHT, kernel) };
}
