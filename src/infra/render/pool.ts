/**
 * The render pool: a Renderer backed by Piscina worker threads running `workers/render.ts`.
 * Sized for the machine (2 cores here: 2 workers). `restingThreads` workers start with the pool and
 * stay (default 1; the service keeps none, issue 40); the others start when renders wait for them
 * and end after a minute idle (~85-135 MB resident each). Every worker checks the templates and
 * warms the image path before it takes a task (workers/render.ts; template and Scene drawing load
 * with their first task); with a resting worker the first render after idle runs on it, without
 * one it waits for a worker's start (~0.25 s on a quiet machine) unless `prewarm` announced it.
 */
import { once } from "node:events";
import { Piscina } from "piscina";
import { RenderRejected, RenderUnavailable } from "./errors.ts";
import { type RenderTask, wireImages, withTransfer, type WorkerReply } from "./protocol.ts";
import { PREVIEW_MAX_SIDE } from "./limits.ts";
import { type Metrics, NO_METRICS } from "../metrics/metrics.ts";
import type {
  ImageRenderRequest,
  InspectedImage,
  PushBitmaps,
  RenderCall,
  Renderer,
  SceneRenderRequest,
  ScreenRenderRequest,
  TemplateRenderRequest,
  TextTask,
} from "./types.ts";

const WORKER_URL = new URL("../../../workers/render.ts", import.meta.url).href;

export interface RenderPoolOptions {
  /** Worker threads; default: one per core, at least 1, at most 4. */
  threads?: number;
  /**
   * Workers kept at rest (started with the pool, never ended for idleness); default 1. 0: none
   * until the first render, and none again after `idleTimeoutMs` without one (the service).
   */
  restingThreads?: number;
  /** How long a worker beyond `restingThreads` may idle before it ends; default 60 s. */
  idleTimeoutMs?: number;
  /** Tasks waiting beyond the running ones before a render rejects with 503. */
  maxQueue?: number;
  /** Wall-clock limit of one task; past it the worker is ended and replaced. Default 20 s. */
  deadlineMs?: number;
  /** Where worker crashes are reported (a crash fails the task, never the process). */
  onError?: (error: unknown) => void;
  /** Render durations by task kind (`/metrics`). */
  metrics?: Metrics;
}

/** CONTRACT "Render budgets": no render task runs longer than this. */
export const RENDER_DEADLINE_MS = 20_000;

/** Default of `idleTimeoutMs`: a burst's workers outlive its pauses, then give their memory back. */
export const WORKER_IDLE_MS = 60_000;

/** Previews one user may have waiting (beyond the running one) before the next is 503. */
export const MAX_WAITING_PREVIEWS_PER_USER = 4;

/** What the pool's balancer reads of a Piscina worker (its `PiscinaWorker`, not exported). */
interface PoolWorker {
  readonly id: number;
  readonly currentUsage: number;
  readonly terminating: boolean;
  readonly destroyed: boolean;
}

/** One task waiting for a thread, in the pool's own queue (see `RenderPool`). */
interface Waiting {
  task: RenderTask;
  buffers: ArrayBufferLike[];
  call: RenderCall;
  resolve: (reply: WorkerReply) => void;
  reject: (error: unknown) => void;
  /** Removes the caller's abort listener once the task leaves the queue. */
  detach: () => void;
}

/** The default size: renders are CPU-bound, so one worker per core. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1));
}

/** The push formats of a worker's reply, as byte arrays over the transferred buffers. */
function bitmaps(reply: WorkerReply & { ok: true }): PushBitmaps {
  return {
    png: new Uint8Array(reply.png!),
    raw2: new Uint8Array(reply.raw2!),
    raw4: new Uint8Array(reply.raw4!),
  };
}

/**
 * A Renderer over Piscina. Its render methods reject with `RenderRejected` for input it cannot
 * render (`timed_out` past the deadline) and `RenderUnavailable` when closed or full.
 *
 * Scheduling (docs/decisions.md, "Render pool"): the pool hands Piscina a task only when a thread
 * is free, from its own queue. Jobs (device pushes, renditions, summaries) go first; previews
 * (someone waiting on an HTTP request) take turns by user, at most one running per user, and
 * never more than all threads but one, so push renders always keep a thread. Every task has a
 * deadline and follows its caller's abort signal: a running one is ended with its worker, which
 * Piscina replaces.
 */
export class RenderPool implements Renderer {
  readonly #pool: Piscina<RenderTask, WorkerReply>;
  readonly #metrics: Metrics;
  readonly #threads: number;
  readonly #resting: number;
  readonly #maxQueue: number;
  readonly #deadlineMs: number;
  /** Previews that may run at once: every thread but one (all of a one-thread pool). */
  readonly #previewSlots: number;
  readonly #jobs: Waiting[] = [];
  /** Waiting previews by user, in the order users take turns. */
  readonly #previews = new Map<string, Waiting[]>();
  readonly #runningByUser = new Map<string, number>();
  /** When each user's last preview started (a turn counter); forgotten when they have none. */
  readonly #lastServed = new Map<string, number>();
  /** How long a render `prewarm` announced counts as coming: as long as a worker may idle. */
  readonly #announcedMs: number;
  #turns = 0;
  #running = 0;
  #runningPreviews = 0;
  #closed = false;
  /** Workers Piscina announced ready (loaded and warmed), by thread id. */
  readonly #ready = new Map<number, PoolWorker>();
  /**
   * Renders `prewarm` announced that have not started yet: when each announcement lapses
   * (`performance.now()` ms), oldest first.
   */
  readonly #announced: number[] = [];
  /** Workers that ended while starting, since one was last ready (`alive`). */
  #startFailures = 0;

  constructor(options: RenderPoolOptions = {}) {
    const threads = options.threads ?? defaultThreads();
    this.#threads = threads;
    this.#resting = Math.max(0, Math.min(threads, options.restingThreads ?? 1));
    this.#maxQueue = options.maxQueue ?? 256;
    this.#deadlineMs = options.deadlineMs ?? RENDER_DEADLINE_MS;
    this.#previewSlots = Math.max(1, threads - 1);
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#announcedMs = options.idleTimeoutMs ?? WORKER_IDLE_MS;
    this.#pool = new Piscina({
      filename: WORKER_URL,
      minThreads: this.#resting,
      maxThreads: threads,
      // The pool's own queue holds what waits; Piscina's only bridges a replaced worker's start.
      maxQueue: Math.max(16, threads * 4),
      idleTimeout: this.#announcedMs,
      // Workers take tasks as messages, so their event loop runs between tasks: the native
      // resvg frees its pixmaps in finalizers that run on that loop (engine.ts). Piscina's
      // default parks an idle worker in a blocking Atomics.wait, where they never ran.
      atomics: "disabled",
      // A task goes to a ready, idle worker only. Piscina's own balancer gave a task to the
      // worker it had just started for it, where the task waited out the worker's start (~0.6
      // s) while the warm worker ran the rest of a burst (issue 26: eleven renders).
      loadBalancer: <W extends PoolWorker>(_task: unknown, workers: W[]): W | null =>
        workers.find((worker) =>
          worker.currentUsage === 0 && this.#ready.has(worker.id) && !worker.terminating &&
          !worker.destroyed
        ) ?? null,
    });
    this.#pool.on("workerCreate", (worker: PoolWorker) => {
      this.#ready.set(worker.id, worker);
      this.#startFailures = 0;
    });
    this.#pool.on("workerDestroy", (worker: PoolWorker) => {
      if (this.#ready.delete(worker.id) || this.#closed) return;
      // Ended while starting: the tasks it was started for wait in Piscina's queue, and Piscina
      // starts a worker only for a new task. One more start for them, not a loop (a broken file).
      // Once Piscina has removed it (it emits this before), so the new task finds a free place.
      if (this.#startFailures++ === 0 && this.#running > 0) {
        setTimeout(() => this.#closed || this.#pool.run({ kind: "warm" }).catch(() => {}), 0);
      }
    });
    // STACK.md: without a listener an abort racing a finishing task crashes the process.
    this.#pool.on("error", options.onError ?? ((error) => console.error("render pool:", error)));
  }

  /** Worker threads running now (between the resting ones and `size`). */
  get threads(): number {
    return this.#pool.threads.length;
  }

  /**
   * Worker threads Piscina announced ready: one started for a burst once it has loaded and warmed;
   * those the pool starts with at once (their warm-up is what `warm()` waits for).
   */
  get readyThreads(): number {
    return this.#ready.size;
  }

  /** Worker threads at most: renders that run at once. */
  get size(): number {
    return this.#threads;
  }

  /**
   * Usable: open, with at least one worker thread, or (no resting workers) none because none was
   * needed yet, not because the last one failed to start. Piscina replaces a worker that crashed;
   * one that fails while starting is not replaced again, so a broken worker file drains the pool.
   */
  get alive(): boolean {
    if (this.#closed) return false;
    if (this.#pool.threads.length > 0) return true;
    return this.#resting === 0 && this.#startFailures === 0;
  }

  /**
   * A render is likely soon (an upload ticket was issued, an HTML screen is being captured): the
   * pool grows to one worker per render announced and not yet started (and per render running),
   * at most `size`, so those renders do not also wait for a worker's start (issue 40: none at
   * rest). Each call starts at most one worker, which warms while the caller uploads or Chromium
   * draws: a first upload starts one, a second upload before the first render starts a second
   * (a burst of photos then renders on all threads instead of one, the second worker's start no
   * longer in the middle of it). An announcement lapses when a task starts or after the
   * workers' idle time. A failure is the render's to report.
   */
  prewarm(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const now = performance.now();
    while (this.#announced.length > 0 && this.#announced[0] <= now) this.#announced.shift();
    this.#announced.push(now + this.#announcedMs);
    const wanted = Math.min(this.#threads, this.#announced.length + this.#running);
    if (this.#pool.threads.length >= wanted) return Promise.resolve();
    // Piscina starts a worker for a task that no ready, idle worker takes (the balancer): one
    // warm task for each idle one (answered at once), and one more that starts the new worker
    // (and runs on the first worker free).
    let idle = 0;
    for (const worker of this.#ready.values()) {
      if (worker.currentUsage === 0 && !worker.terminating && !worker.destroyed) idle++;
    }
    const warms = Array.from({ length: idle + 1 }, () => this.#pool.run({ kind: "warm" }));
    return Promise.all(warms).then(() => {}, () => {});
  }

  /** The worker threads (a test stops one mid-task to see the pool replace it). */
  get workerThreads(): readonly { terminate(): Promise<number> }[] {
    return this.#pool.threads;
  }

  /** Tasks running and waiting, for tests and `/metrics`. */
  get load(): { running: number; waitingJobs: number; waitingPreviews: number } {
    let waitingPreviews = 0;
    for (const queue of this.#previews.values()) waitingPreviews += queue.length;
    return { running: this.#running, waitingJobs: this.#jobs.length, waitingPreviews };
  }

  /**
   * Runs one warm-up render per resting worker: it answers once the worker has loaded and compiled
   * the pipeline, and fails when the worker cannot render. Without resting workers, at once.
   */
  async warm(): Promise<void> {
    const count = this.#resting;
    // Piscina announces the workers it starts with a moment after the pool is made; a task
    // before that would start another worker for nothing.
    while (this.#ready.size < count) await once(this.#pool, "workerCreate");
    await Promise.all(Array.from({ length: count }, () => this.#pool.run({ kind: "warm" })));
  }

  /** Runs a task; a full queue or a closed pool is `RenderUnavailable`, a refusal its code. */
  async #run(
    task: RenderTask,
    buffers: ArrayBufferLike[],
    call: RenderCall = {},
  ): Promise<WorkerReply & { ok: true }> {
    if (this.#closed) throw new RenderUnavailable("Render pool is closed");
    call.signal?.throwIfAborted();
    const started = performance.now();
    const observe = (outcome: "ok" | "rejected" | "error") =>
      this.#metrics.render(task.kind, outcome, (performance.now() - started) / 1e3);
    let reply: WorkerReply;
    try {
      reply = await this.#enqueue(task, buffers, call);
      observe(reply.ok ? "ok" : "rejected");
    } catch (error) {
      observe("error");
      throw error;
    }
    if (!reply.ok) throw new RenderRejected(reply.code, reply.message);
    return reply;
  }

  /** Puts a task in its queue (or refuses it when the queue is full) and starts what can start. */
  #enqueue(task: RenderTask, buffers: ArrayBufferLike[], call: RenderCall): Promise<WorkerReply> {
    const load = this.load;
    if (load.waitingJobs + load.waitingPreviews >= this.#maxQueue) {
      return Promise.reject(new RenderUnavailable("Render queue is full", 5));
    }
    const user = call.previewOf;
    const own = user === undefined ? this.#jobs : this.#previews.get(user) ?? [];
    if (user !== undefined && own.length >= MAX_WAITING_PREVIEWS_PER_USER) {
      return Promise.reject(new RenderUnavailable("Too many previews at once; retry shortly", 2));
    }
    return new Promise<WorkerReply>((resolve, reject) => {
      const waiting: Waiting = { task, buffers, call, resolve, reject, detach: () => {} };
      const signal = call.signal;
      if (signal) {
        const onAbort = () => {
          const index = own.indexOf(waiting);
          if (index < 0) return;
          own.splice(index, 1);
          if (user !== undefined && own.length === 0) this.#previews.delete(user);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        waiting.detach = () => signal.removeEventListener("abort", onAbort);
      }
      own.push(waiting);
      if (user !== undefined) this.#previews.set(user, own);
      this.#pump();
    });
  }

  /**
   * The next task to start, taken from its queue: a job first, else a preview of the user whose
   * last preview started longest ago (or never), who has none running.
   */
  #next(): Waiting | undefined {
    const job = this.#jobs.shift();
    if (job) return job;
    if (this.#runningPreviews >= this.#previewSlots) return undefined;
    let turn: string | undefined;
    for (const user of this.#previews.keys()) {
      if (this.#runningByUser.has(user)) continue;
      if (turn === undefined || this.#served(user) < this.#served(turn)) turn = user;
    }
    if (turn === undefined) return undefined;
    const queue = this.#previews.get(turn)!;
    const waiting = queue.shift()!;
    if (queue.length === 0) this.#previews.delete(turn);
    this.#lastServed.set(turn, ++this.#turns);
    return waiting;
  }

  #served(user: string): number {
    return this.#lastServed.get(user) ?? 0;
  }

  /** Starts waiting tasks while threads are free. */
  #pump(): void {
    while (this.#running < this.#threads) {
      const waiting = this.#next();
      if (!waiting) return;
      waiting.detach();
      this.#start(waiting);
    }
  }

  #start({ task, buffers, call, resolve, reject }: Waiting): void {
    const user = call.previewOf;
    // The render an earlier `prewarm` announced (or another: announcements are not matched).
    this.#announced.shift();
    this.#running++;
    if (user !== undefined) {
      this.#runningPreviews++;
      this.#runningByUser.set(user, (this.#runningByUser.get(user) ?? 0) + 1);
    }
    const deadline = AbortSignal.timeout(this.#deadlineMs);
    const signal = call.signal ? AbortSignal.any([deadline, call.signal]) : deadline;
    this.#pool.run(withTransfer(task, buffers), { signal }).then(resolve, (error) => {
      if (deadline.aborted) {
        reject(new RenderRejected("timed_out", `Render took longer than ${this.#deadlineMs} ms`));
      } else if (call.signal?.aborted) {
        reject(call.signal.reason);
      } else if (error instanceof Error && /queue is at limit/i.test(error.message)) {
        reject(new RenderUnavailable("Render queue is full", 5));
      } else reject(error);
    }).finally(() => {
      this.#running--;
      if (user !== undefined) {
        this.#runningPreviews--;
        const left = this.#runningByUser.get(user)! - 1;
        if (left > 0) this.#runningByUser.set(user, left);
        else {
          this.#runningByUser.delete(user);
          // A user with nothing waiting or running needs no place in the turns.
          if (!this.#previews.has(user)) this.#lastServed.delete(user);
        }
      }
      this.#pump();
    });
  }

  async renderImage(
    source: Uint8Array,
    options?: ImageRenderRequest,
    call?: RenderCall,
  ): Promise<PushBitmaps> {
    // A copy is transferred, so the caller's buffer stays usable (e.g. for a retry).
    const copy = source.slice().buffer;
    return bitmaps(await this.#run({ kind: "image", source: copy, options }, [copy], call));
  }

  async renderTemplate(request: TemplateRenderRequest, call?: RenderCall): Promise<PushBitmaps> {
    return bitmaps(await this.#template(request, false, call));
  }

  async previewTemplate(request: TemplateRenderRequest, call?: RenderCall): Promise<Uint8Array> {
    return new Uint8Array((await this.#template(request, true, call)).png!);
  }

  #template(request: TemplateRenderRequest, pngOnly: boolean, call?: RenderCall) {
    const { images, buffers } = wireImages(request.images);
    const { images: _, ...rest } = request;
    return this.#run({ kind: "template", request: rest, images, pngOnly }, buffers, call);
  }

  async renderScene(request: SceneRenderRequest, call?: RenderCall): Promise<Uint8Array> {
    const { images, buffers } = wireImages(request.images);
    const { images: _, ...rest } = request;
    const reply = await this.#run({ kind: "scene", request: rest, images }, buffers, call);
    return new Uint8Array(reply.png!);
  }

  async inspectImage(source: Uint8Array): Promise<InspectedImage> {
    const copy = source.slice().buffer;
    const reply = await this.#run({ kind: "inspect", source: copy, maxSide: PREVIEW_MAX_SIDE }, [
      copy,
    ]);
    return { facts: reply.facts!, preview: new Uint8Array(reply.png!) };
  }

  async runText(task: TextTask): Promise<unknown> {
    const buffers = task.op === "page" ? [task.body] : [];
    const reply = await this.#run({ kind: "text", task }, buffers);
    return reply.value;
  }

  async renderScreen(request: ScreenRenderRequest, call?: RenderCall): Promise<PushBitmaps> {
    return bitmaps(await this.#screen(request, false, call));
  }

  async previewScreen(request: ScreenRenderRequest, call?: RenderCall): Promise<Uint8Array> {
    return new Uint8Array((await this.#screen(request, true, call)).png!);
  }

  #screen(request: ScreenRenderRequest, pngOnly: boolean, call?: RenderCall) {
    // A copy is transferred: the caller's screenshot stays usable.
    const screenshot = request.screenshot.slice().buffer;
    const { screenshot: _, ...rest } = request;
    return this.#run({ kind: "screen", request: rest, screenshot, pngOnly }, [screenshot], call);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // What still waits for a thread is refused; renders already running finish.
    const waiting = [...this.#jobs.splice(0), ...[...this.#previews.values()].flat()];
    this.#previews.clear();
    for (const task of waiting) {
      task.detach();
      task.reject(new RenderUnavailable("Render pool is closed"));
    }
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
