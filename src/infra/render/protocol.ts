/** Messages between the render pool client and its Piscina workers (`workers/render.ts`). */
import { move, transferableSymbol, valueSymbol } from "piscina";
import type { RenderFailureCode } from "./limits.ts";
import type { ImageFacts } from "./inspect.ts";
import type {
  ImageRenderRequest,
  PushBitmaps,
  SceneRenderRequest,
  ScreenRenderRequest,
  TemplateRenderRequest,
  TextTask,
} from "./types.ts";

/**
 * Why a task cannot be rendered; retrying never helps with any of these. `timed_out` is the
 * pool's own: the task ran past its deadline and its worker was ended.
 */
export type WorkerFailureCode = RenderFailureCode | "not_found" | "invalid_request" | "timed_out";

/** Picture bytes by file id, as whole ArrayBuffers (see `wireBuffer`). */
export type WireImages = Record<string, ArrayBuffer>;

/**
 * One unit of work for a worker. `image`: an uploaded picture into the push formats;
 * `template`: a push template into the push formats; `scene`: a Scene rendition into one PNG;
 * `inspect`: a picture measured and downsized for a vision model (the summary stage); `screen`:
 * an HTML screen's screenshot into a panel's push formats;
 * `warm`: loads and compiles every pipeline once. Bytes travel as ArrayBuffers, never as typed
 * arrays (see `wireBuffer`).
 */
export type RenderTask =
  | { kind: "image"; source: ArrayBuffer; options?: ImageRenderRequest }
  | {
    kind: "template";
    request: Omit<TemplateRenderRequest, "images">;
    images: WireImages;
    /** A preview's reply carries the PNG alone; the other formats stay in the worker. */
    pngOnly?: boolean;
  }
  | { kind: "scene"; request: Omit<SceneRenderRequest, "images">; images: WireImages }
  | { kind: "inspect"; source: ArrayBuffer; maxSide: number }
  | {
    kind: "screen";
    request: Omit<ScreenRenderRequest, "screenshot">;
    /** The page's PNG screenshot (transferred). */
    screenshot: ArrayBuffer;
    pngOnly?: boolean;
  }
  | { kind: "text"; task: TextTask }
  | { kind: "warm" };

/**
 * A worker's answer: the push formats (or, for a Scene or a template preview, `png` alone; for
 * `inspect`, the preview JPEG in `png`'s place, with the facts), or why it failed.
 */
export type WorkerReply =
  | {
    ok: true;
    /** Every task's but a text task's. */
    png?: ArrayBuffer;
    raw2?: ArrayBuffer;
    raw4?: ArrayBuffer;
    facts?: ImageFacts;
    /** A text task's result. */
    value?: unknown;
  }
  | { ok: false; code: WorkerFailureCode; message: string };

/**
 * An ArrayBuffer holding exactly `bytes`: the view's own buffer when it spans all of it, else a
 * copy. Measured on Deno 2.9: a Uint8Array crossing Piscina's MessagePort is cloned at ~0.2 ms per
 * KB (23 ms for a 100 KB PNG, 365 ms for 2 MB), an ArrayBuffer at ~1.5 ms per MB, and a
 * transferred one in under a millisecond whatever its size. So every message carries buffers.
 */
export function wireBuffer(bytes: Uint8Array): ArrayBuffer {
  const { buffer } = bytes;
  if (
    buffer instanceof ArrayBuffer && bytes.byteOffset === 0 &&
    bytes.byteLength === buffer.byteLength
  ) {
    return buffer;
  }
  return bytes.slice().buffer;
}

/** `images` as wire buffers (each copied, so the caller's arrays stay usable) and their list. */
export function wireImages(images: Record<string, Uint8Array> = {}): {
  images: WireImages;
  buffers: ArrayBuffer[];
} {
  const wire: WireImages = {};
  for (const [fileId, bytes] of Object.entries(images)) wire[fileId] = bytes.slice().buffer;
  return { images: wire, buffers: Object.values(wire) };
}

/** Wire images back into byte arrays (no copy). */
export function fromWireImages(images: WireImages): Record<string, Uint8Array> {
  const bytes: Record<string, Uint8Array> = {};
  for (const [fileId, buffer] of Object.entries(images)) bytes[fileId] = new Uint8Array(buffer);
  return bytes;
}

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

/** A worker's reply with the three push formats, transferred. */
export function bitmapsReply(bitmaps: PushBitmaps): WorkerReply {
  const [png, raw2, raw4] = [bitmaps.png, bitmaps.raw2, bitmaps.raw4].map(wireBuffer);
  return withTransfer({ ok: true, png, raw2, raw4 }, [png, raw2, raw4]);
}

/**
 * A worker's reply with one PNG (a Scene, a template preview; `inspect`'s JPEG with its facts),
 * transferred: nothing else crosses to the request loop.
 */
export function pngReply(bytes: Uint8Array, facts?: ImageFacts): WorkerReply {
  const png = wireBuffer(bytes);
  return withTransfer(facts ? { ok: true, png, facts } : { ok: true, png }, [png]);
}
