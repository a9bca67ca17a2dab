/**
 * The render pool: a Renderer backed by Piscina worker threads running `workers/render.ts`.
 * Sized for the machine (2 cores here: 2 workers), warmed at start (fonts, resvg's WebAssembly,
 * templates, one render of each kind) so the first push does not pay for loading and JIT.
 */
import { Piscina } from "piscina";
import { RenderRejected, RenderUnavailable } from "./errors.ts";
import { type RenderTask, wireImages, withTransfer, type WorkerReply } from "./protocol.ts";
import { PREVIEW_MAX_SIDE } from "./inspect.ts";
import { type Metrics, NO_METRICS } from "../metrics/metrics.ts";
import type {
  ImageRenderRequest,
  InspectedImage,
  PushBitmaps,
  Renderer,
  SceneRenderRequest,
  TemplateRenderRequest,
} from "./types.ts";

const WORKER_URL = new URL("../../workers/render.ts", import.meta.url).href;

export interface RenderPoolOptions {
  /** Worker threads; default: one per core, at least 1, at most 4. */
  threads?: number;
  /** Tasks waiting beyond the running ones before `renderImage` rejects with 503. */
  maxQueue?: number;
  /** Where worker crashes are reported (a crash fails the task, never the process). */
  onError?: (error: unknown) => void;
  /** Render durations by task kind (`/metrics`). */
  metrics?: Metrics;
}

/** The default size: renders are CPU-bound, so one worker per core. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1));
}

/** The push formats of a worker's reply, as byte arrays over the transferred buffers. */
function bitmaps(reply: WorkerReply & { ok: true }): PushBitmaps {
  return {
    png: new Uint8Array(reply.png),
    raw2: new Uint8Array(reply.raw2!),
    raw4: new Uint8Array(reply.raw4!),
  };
}

/**
 * A Renderer over Piscina. Its render methods reject with `RenderRejected` for input it cannot
 * render and `RenderUnavailable` when closed or full.
 */
export class RenderPool implements Renderer {
  readonly #pool: Piscina<RenderTask, WorkerReply>;
  readonly #metrics: Metrics;
  #closed = false;

  constructor(options: RenderPoolOptions = {}) {
    const threads = options.threads ?? defaultThreads();
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#pool = new Piscina({
      filename: WORKER_URL,
      minThreads: threads,
      maxThreads: threads,
      maxQueue: options.maxQueue ?? 256,
      idleTimeout: Infinity,
      // Workers take tasks as messages, so their event loop runs between tasks: the native
      // resvg frees its pixmaps in finalizers that run on that loop (engine.ts). Piscina's
      // default parks an idle worker in a blocking Atomics.wait, where they never ran.
      atomics: "disabled",
    });
    // STACK.md: without a listener an abort racing a finishing task crashes the process.
    this.#pool.on("error", options.onError ?? ((error) => console.error("render pool:", error)));
  }

  get threads(): number {
    return this.#pool.threads.length;
  }

  /**
   * Usable: open, with at least one worker thread. Piscina replaces a worker that crashed; one
   * that fails while starting is not replaced again, so a broken worker file drains the pool.
   */
  get alive(): boolean {
    return !this.#closed && this.#pool.threads.length > 0;
  }

  /** The worker threads (a test stops one mid-task to see the pool replace it). */
  get workerThreads(): readonly { terminate(): Promise<number> }[] {
    return this.#pool.threads;
  }

  /** Runs one warm-up render per worker, so each has loaded and compiled the pipeline. */
  async warm(): Promise<void> {
    const count = this.#pool.options.maxThreads;
    await Promise.all(Array.from({ length: count }, () => this.#pool.run({ kind: "warm" })));
  }

  /** Runs a task; a full queue or a closed pool is `RenderUnavailable`, a refusal its code. */
  async #run(task: RenderTask, buffers: ArrayBufferLike[]): Promise<WorkerReply & { ok: true }> {
    if (this.#closed) throw new RenderUnavailable("Render pool is closed");
    let reply: WorkerReply;
    const started = performance.now();
    const observe = (outcome: "ok" | "rejected" | "error") =>
      this.#metrics.render(task.kind, outcome, (performance.now() - started) / 1e3);
    try {
      reply = await this.#pool.run(withTransfer(task, buffers));
      observe(reply.ok ? "ok" : "rejected");
    } catch (error) {
      observe("error");
      if (error instanceof Error && /queue is at limit/i.test(error.message)) {
        throw new RenderUnavailable("Render queue is full", 5);
      }
      throw error;
    }
    if (!reply.ok) throw new RenderRejected(reply.code, reply.message);
    return reply;
  }

  async renderImage(source: Uint8Array, options?: ImageRenderRequest): Promise<PushBitmaps> {
    // A copy is transferred, so the caller's buffer stays usable (e.g. for a retry).
    const copy = source.slice().buffer;
    return bitmaps(await this.#run({ kind: "image", source: copy, options }, [copy]));
  }

  async renderTemplate(request: TemplateRenderRequest): Promise<PushBitmaps> {
    return bitmaps(await this.#template(request, false));
  }

  async previewTemplate(request: TemplateRenderRequest): Promise<Uint8Array> {
    return new Uint8Array((await this.#template(request, true)).png);
  }

  #template(request: TemplateRenderRequest, pngOnly: boolean) {
    const { images, buffers } = wireImages(request.images);
    const { images: _, ...rest } = request;
    return this.#run({ kind: "template", request: rest, images, pngOnly }, buffers);
  }

  async renderScene(request: SceneRenderRequest): Promise<Uint8Array> {
    const { images, buffers } = wireImages(request.images);
    const { images: _, ...rest } = request;
    const reply = await this.#run({ kind: "scene", request: rest, images }, buffers);
    return new Uint8Array(reply.png);
  }

  async inspectImage(source: Uint8Array): Promise<InspectedImage> {
    const copy = source.slice().buffer;
    const reply = await this.#run({ kind: "inspect", source: copy, maxSide: PREVIEW_MAX_SIDE }, [
      copy,
    ]);
    return { facts: reply.facts!, preview: new Uint8Array(reply.png) };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Not forced: renders already running finish and their callers get their bitmaps.
    await this.#pool.close();
  }
}

/** Opens and warms a pool; the caller closes it. */
export async function createRenderPool(options: RenderPoolOptions = {}): Promise<RenderPool> {
  const pool = new RenderPool(options);
  try {
    await pool.warm();
  } catch (error) {
    await pool.close();
    throw error;
  }
  return pool;
}
