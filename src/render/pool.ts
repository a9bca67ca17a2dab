/**
 * The render pool: a Renderer backed by Piscina worker threads running `workers/render.ts`.
 * Sized for the machine (2 cores here: 2 workers), warmed at start so the first push does not
 * pay for module loading and JIT.
 */
import { Piscina } from "piscina";
import { AppError } from "../errors.ts";
import { type RenderTask, withTransfer, type WorkerReply } from "./protocol.ts";
import type { PushBitmaps, Renderer } from "./types.ts";

const WORKER_URL = new URL("../../workers/render.ts", import.meta.url).href;

export interface RenderPoolOptions {
  /** Worker threads; default: one per core, at least 1, at most 4. */
  threads?: number;
  /** Tasks waiting beyond the running ones before `renderImage` rejects with 503. */
  maxQueue?: number;
  /** Where worker crashes are reported (a crash fails the task, never the process). */
  onError?: (error: unknown) => void;
}

/** The default size: renders are CPU-bound, so one worker per core. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1));
}

/** A Renderer over Piscina. `renderImage` rejects with AppError for images it cannot render. */
export class RenderPool implements Renderer {
  readonly #pool: Piscina<RenderTask, WorkerReply>;
  #closed = false;

  constructor(options: RenderPoolOptions = {}) {
    const threads = options.threads ?? defaultThreads();
    this.#pool = new Piscina({
      filename: WORKER_URL,
      minThreads: threads,
      maxThreads: threads,
      maxQueue: options.maxQueue ?? 256,
      idleTimeout: Infinity,
    });
    // STACK.md: without a listener an abort racing a finishing task crashes the process.
    this.#pool.on("error", options.onError ?? ((error) => console.error("render pool:", error)));
  }

  get threads(): number {
    return this.#pool.threads.length;
  }

  /** Runs one warm-up render per worker, so each has loaded and compiled the pipeline. */
  async warm(): Promise<void> {
    const count = this.#pool.options.maxThreads;
    await Promise.all(Array.from({ length: count }, () => this.#pool.run({ kind: "warm" })));
  }

  async renderImage(source: Uint8Array): Promise<PushBitmaps> {
    if (this.#closed) throw new AppError("unavailable", "Render pool is closed");
    // A copy is transferred, so the caller's buffer stays usable (e.g. for a retry).
    const copy = source.slice();
    let reply: WorkerReply;
    try {
      reply = await this.#pool.run(withTransfer({ kind: "image", source: copy }, [copy.buffer]));
    } catch (error) {
      if (error instanceof Error && /queue is at limit/i.test(error.message)) {
        throw new AppError("unavailable", "Render queue is full", { "Retry-After": "5" });
      }
      throw error;
    }
    if (reply.ok) return { png: reply.png, raw2: reply.raw2, raw4: reply.raw4 };
    throw new AppError(
      reply.code === "too_large" ? "payload_too_large" : "unsupported_media_type",
      reply.message,
    );
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
