/** Messages between the render pool client and its Piscina workers (`workers/render.ts`). */
import { move, transferableSymbol, valueSymbol } from "piscina";
import type { RenderFailureCode } from "./bitmaps.ts";
import type { SceneRenderRequest, TemplateRenderRequest } from "./types.ts";

/** Why a task cannot be rendered; retrying never helps with any of these. */
export type WorkerFailureCode = RenderFailureCode | "not_found" | "invalid_request";

/**
 * One unit of work for a worker. `image`: an uploaded picture into the push formats;
 * `template`: a push template into the push formats; `scene`: a Scene rendition into one PNG;
 * `warm`: loads and compiles every pipeline once.
 */
export type RenderTask =
  | { kind: "image"; source: Uint8Array }
  | { kind: "template"; request: TemplateRenderRequest }
  | { kind: "scene"; request: SceneRenderRequest }
  | { kind: "warm" };

/** A worker's answer: the push formats (or, for a Scene, `png` alone), or why it failed. */
export type WorkerReply =
  | { ok: true; png: Uint8Array; raw2: Uint8Array; raw4: Uint8Array }
  | { ok: true; png: Uint8Array; raw2?: undefined; raw4?: undefined }
  | { ok: false; code: WorkerFailureCode; message: string };

/** A 2x2 grey PNG (black, white / mid grey, white): enough to run every stage once. */
export const WARM_UP_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAAAAABX3VL4AAAADklEQVR4XmNg+M/Q8B8ABgECf4hJeggAAAAASUVORK5CYII=",
  ),
  (c) => c.charCodeAt(0),
);

/**
 * Wraps a message so Piscina transfers `buffers` instead of copying them. Piscina only looks at
 * the top-level value, and its `move()` takes one buffer; this hands it several.
 */
export function withTransfer<T>(value: T, buffers: ArrayBufferLike[]): T {
  return move({ [transferableSymbol]: buffers, [valueSymbol]: value } as never) as T;
}
