/**
 * The layout and raster core shared by push templates and Scenes: a satori element tree is laid
 * out into SVG (text as glyph paths), and resvg rasterises the SVG into RGBA. Both run in the
 * Piscina workers, never on the request loop (ARCHITECTURE.md: one raster core).
 */
import satori from "satori";
import { fontsFor } from "./fonts.ts";
import type { LayoutChild, LayoutNode } from "./html.ts";

/** Which build of resvg draws: the native addon or the WebAssembly one. */
export type RasterBackend = "native" | "wasm";

/** The part of resvg's API both builds share. */
interface Resvg {
  render(): { pixels: Uint8Array; width: number; height: number; free?(): void };
  free?(): void;
}
type ResvgClass = new (svg: string, options: Record<string, unknown>) => Resvg;

const backends = new Map<RasterBackend, Promise<ResvgClass>>();

/**
 * Loads one build of resvg, once per thread. Both are resvg 2.6.2 and draw the same pixels
 * (`engine_test.ts` compares them); the native addon draws an 800x480 frame ~2.5x faster
 * (decisions.md), the WebAssembly build runs where no prebuilt addon exists. The native one
 * frees its memory in finalizers, which run on the thread's event loop after a collection
 * (pool.ts).
 */
export function loadResvg(backend: RasterBackend): Promise<ResvgClass> {
  let loading = backends.get(backend);
  if (!loading) {
    loading = backend === "native"
      ? import("@resvg/resvg-js").then((module) => module.Resvg as unknown as ResvgClass)
      : import("@resvg/resvg-wasm").then(async (module) => {
        await module.initWasm(
          Deno.readFile(new URL(import.meta.resolve("@resvg/resvg-wasm/index_bg.wasm"))),
        );
        return module.Resvg as unknown as ResvgClass;
      });
    backends.set(backend, loading);
  }
  return loading;
}

let preferred: Promise<{ backend: RasterBackend; Resvg: ResvgClass }> | undefined;

/** The native build where its addon loads on this platform, else WebAssembly. */
export function defaultResvg(): Promise<{ backend: RasterBackend; Resvg: ResvgClass }> {
  preferred ??= loadResvg("native").then(
    (Resvg) => ({ backend: "native" as const, Resvg }),
    () => loadResvg("wasm").then((Resvg) => ({ backend: "wasm" as const, Resvg })),
  );
  return preferred;
}

/**
 * Loads resvg and the Latin fonts, once per thread. STACK.md: the first render in a fresh worker
 * costs ~250 ms per stage, so the pool warms every worker at start. The CJK font loads with the
 * first text that needs it (fonts.ts).
 */
export function initLayout(): Promise<void> {
  return Promise.all([defaultResvg(), fontsFor("")]).then(() => {});
}

/** List markers satori may draw (disc, circle, square) where a style asks for list items. */
const LIST_MARKERS = "•◦▪";

/** Every character a layout tree may draw: its text runs, and list markers where styled. */
function textOf(child: LayoutChild | LayoutChild[] | undefined, out: string[] = []): string[] {
  if (typeof child === "string") out.push(child);
  else if (Array.isArray(child)) { for (const c of child) textOf(c, out); }
  else if (child) {
    const style = child.props.style ?? {};
    if (
      style.display === "list-item" || Object.keys(style).some((k) => k.startsWith("listStyle"))
    ) {
      out.push(LIST_MARKERS);
    }
    textOf(child.props.children, out);
  }
  return out;
}

/** Lays a tree out in a `width` x `height` box and returns the SVG. */
export async function layoutSvg(tree: LayoutNode, width: number, height: number): Promise<string> {
  await initLayout();
  return await satori(tree as never, {
    width,
    height,
    fonts: await fontsFor(textOf(tree).join("")),
    // An unsupported declaration is ignored, as a browser would, rather than failing the render.
    onStyleError: () => {},
  });
}

/** An RGBA raster, 4 bytes per pixel, row-major, alpha not premultiplied. */
export interface RgbaFrame {
  rgba: Uint8Array;
  width: number;
  height: number;
}

/** How an SVG laid out in `viewBox` units is drawn onto a `width` x `height` raster. */
export interface RasterOptions {
  width: number;
  height: number;
  /** The layout's own size; drawn stretched onto the raster when it differs. Default: same. */
  viewBox?: { width: number; height: number };
  /**
   * No anti-aliasing of shapes and glyphs: every edge is already black or white, so 1-bit output
   * needs no threshold of glyph edges (and resvg runs about twice as fast).
   */
  crisp?: boolean;
  /** Canvas colour under everything (CSS colour); default white. */
  background?: string;
}

const ROOT = /^<svg width="[^"]*" height="[^"]*" viewBox="[^"]*"/;

/** Points the SVG's root at the raster size, mapping the layout's box onto it exactly. */
export function retargetSvg(svg: string, options: RasterOptions): string {
  const box = options.viewBox ?? options;
  if (!ROOT.test(svg)) throw new Error("Layout SVG has an unexpected root element");
  return svg.replace(
    ROOT,
    `<svg width="${options.width}" height="${options.height}" viewBox="0 0 ${box.width} ${box.height}" preserveAspectRatio="none"`,
  );
}

const IMAGE =
  /<image x="([^"]+)" y="([^"]+)" width="([^"]+)" height="([^"]+)"([^>]*?) clip-path="url\(#([\w-]+)\)" mask="url\(#([\w-]+)\)"\/>/g;

/**
 * satori wraps every `<image>` in a clip path and a mask of the image's own box. Both are then
 * no-ops (pictures here are cut to their box before embedding), but resvg draws a mask through
 * an offscreen layer the size of the canvas: 40 ms for one photo on an 800x480 frame. Drops the
 * two attributes when the clip path and the mask are exactly the image's rectangle, and only then.
 */
export function dropImageSelfClips(svg: string): string {
  return svg.replace(IMAGE, (image, x, y, width, height, rest, clip, mask) => {
    const box = `x="${x}" y="${y}" width="${width}" height="${height}"`;
    const ownClip = svg.includes(`<clipPath id="${clip}"><rect ${box}/></clipPath>`);
    const ownMask = svg.includes(`<mask id="${mask}"><rect ${box} fill="#fff"/></mask>`);
    return ownClip && ownMask ? `<image ${box}${rest}/>` : image;
  });
}

/** Rasterises an SVG (from `layoutSvg`) with resvg (`backend`: default the native build). */
export async function rasterise(
  svg: string,
  options: RasterOptions,
  backend?: RasterBackend,
): Promise<RgbaFrame> {
  const Resvg = backend ? await loadResvg(backend) : (await defaultResvg()).Resvg;
  const resvg = new Resvg(retargetSvg(dropImageSelfClips(svg), options), {
    background: options.background ?? "#ffffff",
    shapeRendering: options.crisp ? 0 : 2,
    textRendering: options.crisp ? 0 : 1,
    font: { loadSystemFonts: false },
  });
  try {
    const image = resvg.render();
    try {
      if (image.width !== options.width || image.height !== options.height) {
        throw new Error(`Raster of ${image.width}x${image.height} is not the requested size`);
      }
      return { rgba: image.pixels, width: image.width, height: image.height };
    } finally {
      image.free?.();
    }
  } finally {
    resvg.free?.();
  }
}
