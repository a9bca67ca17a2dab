/** What the render pool produces for one 800x480 push (SPEC 4.5 formats, 4.6 render stage). */
import type { ImageFacts } from "./inspect.ts";
import type { DitherKernel } from "./dither.ts";
import type { ImageMode } from "./paper.ts";
import type { ColorMode, SceneMode } from "./scene/types.ts";

export { DITHER_KERNELS, type DitherKernel, PHOTO_DITHER } from "./dither.ts";
export { IMAGE_MODES, type ImageMode } from "./paper.ts";

/** Content types the render pool decodes (docs/decisions.md, render): the rest never render. */
export const RENDERABLE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/bmp",
  "image/webp",
  "image/gif",
  "image/avif",
  "image/tiff",
]);

/** How `RENDERABLE_TYPES` are named to a user. */
export const RENDERABLE_NAMES = "PNG, JPEG, BMP, WebP, GIF, AVIF or TIFF";

export const FRAME_WIDTH = 800;
export const FRAME_HEIGHT = 480;

export interface PushBitmaps {
  /** `image.png`: 1-bit grey PNG, toned and dithered (Atkinson unless the push chose). */
  png: Uint8Array;
  /** `image2.raw`: 1 bpp, 48000 bytes, MSB first, row-major, 1 = white. */
  raw2: Uint8Array;
  /** `image4.raw`: 2 bpp, 96000 bytes, 4 grey levels. */
  raw4: Uint8Array;
}

/** A push template render (CONTRACT.md: Content pipeline). */
export interface TemplateRenderRequest {
  /** Template name, a folder of `templates/`. */
  name: string;
  /** The variables, checked against the template's JSON Schema before rendering. */
  variables: unknown;
  /**
   * Image bytes by file id, for the template's image variables. The caller loads them (only the
   * user's own files); the renderer never fetches anything.
   */
  images?: Record<string, Uint8Array>;
  /** ISO timestamp date filters count from (a countdown's "days to go"); default: now. */
  now?: string;
  /** Error diffusion of pictures and grey fills (text is never dithered); default `PHOTO_DITHER`. */
  dither?: DitherKernel;
  /** A display's panel: laid out for its aspect, drawn at its size and depth (CONTRACT.md). */
  panel?: PanelSpec;
}

/** A Scene v1 rendition (SPEC 2.12, 4.7). */
export interface SceneRenderRequest {
  /** The Scene's `data`; normalised again before rendering. */
  scene: unknown;
  /** Picture bytes by file id: the caller resolves only the user's own assets. */
  images?: Record<string, Uint8Array>;
  width: number;
  height: number;
  /** Default `color`. */
  colorMode?: ColorMode;
  /** `hardcode` stretches the Scene to the size (SPEC 4.7); default `auto`. */
  mode?: SceneMode;
  /** Pixels per rendition (TARGETLESS_MAX_RENDITION_PIXELS); default 4,000,000. */
  maxPixels?: number;
  /**
   * `monochrome` only: error diffusion of pictures and grey fills (text is never dithered);
   * default `PHOTO_DITHER`. The API field is `dither` (docs/decisions.md).
   */
  dither?: DitherKernel;
}

/**
 * A display's panel (CONTRACT.md "Displays people already own"): a push for it is drawn at its
 * size, and its `image.png` is a greyscale PNG of its bit depth.
 */
export interface PanelSpec {
  width: number;
  height: number;
  bitDepth: 1 | 2 | 4;
  /**
   * Degrees clockwise the picture is turned onto the panel's pixels (the display profile's
   * `rotation`): it is laid out upright (`uprightSize`) and turned into `width` x `height`.
   * 90: a panel hung with its top edge to the left, showing a portrait picture.
   */
  rotation?: 0 | 90 | 180 | 270;
}

/** The size a panel's picture is laid out at: its own, sides swapped for 90 or 270 degrees. */
export function uprightSize(panel: PanelSpec): { width: number; height: number } {
  return panel.rotation === 90 || panel.rotation === 270
    ? { width: panel.height, height: panel.width }
    : { width: panel.width, height: panel.height };
}

/**
 * An HTML screen's screenshot into a panel's push formats (`screen.ts`): text crisp, only the
 * picture boxes error-diffused.
 */
export interface ScreenRenderRequest {
  /** PNG of the page as laid out upright (`uprightSize(panel)`), any colour type. */
  screenshot: Uint8Array;
  /** The boxes of the page's pictures, in its pixels. */
  pictures: Array<{ x: number; y: number; width: number; height: number }>;
  panel: PanelSpec;
  /** Error diffusion of the pictures; default `PHOTO_DITHER`. */
  dither?: DitherKernel;
}

/** Options of an uploaded picture's render (issue 12). */
/** How a picture fills the frame (a custom push's `fit`, like the `photo` template's). */
export const IMAGE_FITS = ["contain", "cover"] as const;
export type ImageFit = typeof IMAGE_FITS[number];

export interface ImageRenderRequest {
  /**
   * Error diffusion: `atkinson` (default for photos), `floyd-steinberg` or `threshold` (default
   * for documents).
   */
  dither?: DitherKernel;
  /**
   * `document`: a photo of paper, its light flattened (issue 26); `photo`: toned as a picture;
   * `auto` (default): decided from the picture.
   */
  mode?: ImageMode;
  /** A display's panel: drawn at its size and depth instead of the 800x480 push formats. */
  panel?: PanelSpec;
  /**
   * `contain`: the whole picture on white; `cover`: the frame filled, cropped at the centre;
   * default: cover when that keeps at least 3/4 of a picture that is not a document (issue 34).
   */
  fit?: ImageFit;
}

/** A picture measured and downsized for a vision model (the summary stage, SPEC 4.6). */
export interface InspectedImage {
  facts: ImageFacts;
  /** A grey JPEG, at most 1024 px a side. */
  preview: Uint8Array;
}

/**
 * CPU work over user text that stays off the request loop (issue 25): a fetched page's text
 * (`page`: HTML or plain, the body's bytes and charset) and the offline model's note summary
 * (`summary`: the model request). Linear in their input, but a 2 MiB page still costs ~0.2 s.
 */
export type TextTask =
  | { op: "page"; html: boolean; url: string; body: ArrayBuffer; charset: string | null }
  | { op: "summary"; request: unknown }
  | {
    op: "liquid";
    markup: string;
    context: Record<string, unknown>;
    deadlineMs?: number;
  };

/** A `liquid` text task's value: the HTML, or why the markup did not render. */
export type LiquidResult = { ok: true; html: string } | { ok: false; message: string };

/** Who waits on a render, for the pool's scheduling (docs/decisions.md, "Render pool"). */
export interface RenderCall {
  /** The caller went away: a waiting task is dropped, a running one ended with its worker. */
  signal?: AbortSignal;
  /**
   * The user a preview is for (a person waiting on an HTTP request). Previews take turns by
   * user and never hold every thread; without it the task is a job (a push, a rendition).
   */
  previewOf?: string;
}

/** The render pool as the rest of the service sees it (Piscina workers behind it). */
export interface Renderer {
  /**
   * Decodes an uploaded image (PNG, JPEG, BMP, WebP, GIF, AVIF, TIFF), fits it to 800x480 on
   * white, tones, dithers, packs. Rejects with `RenderRejected` when the image itself cannot be
   * rendered (415 `unsupported_media_type`: not a supported format or corrupt; 413
   * `payload_too_large`: over its format's pixel limit): retrying will not help. Any other
   * rejection is transient (a worker crashed).
   */
  renderImage(
    source: Uint8Array,
    options?: ImageRenderRequest,
    call?: RenderCall,
  ): Promise<PushBitmaps>;
  /**
   * Renders a push template into the push formats: text black on white and never dithered,
   * photos dithered. Rejects with `RenderRejected` `not_found` for an unknown template, 400
   * `invalid_request` naming the variable that does not match the schema (or an image variable
   * whose bytes were not passed), 415/413 for a photo that cannot be decoded. Permanent.
   */
  renderTemplate(request: TemplateRenderRequest, call?: RenderCall): Promise<PushBitmaps>;
  /**
   * The push image (`image.png`) of a template alone, for a preview; rejects like
   * `renderTemplate`. The other formats never leave the worker: moved to the request loop at
   * ~150 KB a preview, they were external memory that made its GC run a full collection every
   * second or so under a preview load (issue 10).
   */
  previewTemplate(request: TemplateRenderRequest, call?: RenderCall): Promise<Uint8Array>;
  /**
   * Renders a Scene rendition into PNG bytes (colour, 8-bit grey or 1-bit dithered). Rejects with
   * `RenderRejected` `invalid_request` for an invalid Scene or size or one over its budgets
   * (scene/budget.ts), 415/413 for an image that cannot be decoded. Permanent; any other
   * rejection is transient.
   */
  renderScene(request: SceneRenderRequest, call?: RenderCall): Promise<Uint8Array>;
  /**
   * Measures a picture (size, brightness, contrast, layout) and downsizes it to a grey JPEG for
   * a vision model. Rejects with `RenderRejected` like `renderImage` for a picture it cannot
   * decode. Used by the summary stage.
   */
  inspectImage(source: Uint8Array): Promise<InspectedImage>;
  /**
   * Runs CPU work over user text in a worker, off the request loop (issue 25): a fetched page's
   * text, or the offline model's summary. A page's body buffer is transferred (the caller's is
   * detached). Resolves with the task's plain result.
   */
  runText(task: TextTask): Promise<unknown>;
  /**
   * An HTML screen's screenshot into the panel's push formats (`image.png` at the panel's
   * depth, `image2.raw`, `image4.raw`), as an image push for a panel is. Rejects with
   * `RenderRejected` `undecodable` for a screenshot that is not a PNG of the panel's upright size.
   */
  renderScreen(request: ScreenRenderRequest, call?: RenderCall): Promise<PushBitmaps>;
  /** `renderScreen`'s `image.png` alone, for a preview (the other formats stay in the worker). */
  previewScreen(request: ScreenRenderRequest, call?: RenderCall): Promise<Uint8Array>;
  /**
   * A render is likely soon: start a worker for it now unless one is there for it (the pool: one
   * per render announced and not started, up to its size; a no-op elsewhere).
   */
  prewarm?(): Promise<void>;
  close(): Promise<void>;
}
