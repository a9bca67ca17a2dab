/** Messages between the render pool client and its Piscina workers (`workers/render.ts`). */
import { move, transferableSymbol, valueSymbol } from "piscina";
import type { RenderFailureCode } from "./bitmaps.ts";

/** One unit of work for a worker; `warm` renders a built-in image to load and JIT the code. */
export type RenderTask =
  | { kind: "image"; source: Uint8Array }
  | { kind: "warm" };

/** A worker's answer: the three formats, or why the image cannot be rendered. */
export type WorkerReply =
  | { ok: true; png: Uint8Array; raw2: Uint8Array; raw4: Uint8Array }
  | { ok: false; code: RenderFailureCode; message: string };

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
