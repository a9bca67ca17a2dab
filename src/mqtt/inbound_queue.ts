/**
 * Bounded hand-off of device messages to their handler. The broker delivers as fast as devices
 * publish; handlers wait on the database. Without a bound, a device flooding `up/get_push` would
 * make the service hold one pending handler (and its payload) per message. Here each thing's
 * messages run one at a time and in order (a status `offline` never overtakes the `online` before
 * it), at most `concurrency` things run at once, and past `maxQueued` messages in all, or
 * `maxPerThing` waiting for one thing, new messages are dropped.
 */

export interface QueueLimits {
  /** Handlers running at once, across things. */
  concurrency: number;
  /** Messages waiting, across things. */
  maxQueued: number;
  /** Messages waiting for one thing. */
  maxPerThing: number;
}

/** Defaults: a few handlers at once (each holds a database connection), modest backlogs. */
export const DEFAULT_LIMITS: QueueLimits = { concurrency: 8, maxQueued: 512, maxPerThing: 16 };

interface Lane<T> {
  waiting: T[];
  running: boolean;
}

/** Per-key FIFO lanes under a global concurrency limit; `push` says whether it was accepted. */
export class InboundQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Keys with waiting messages and nothing running, in arrival order. */
  private readonly ready: string[] = [];
  private running = 0;
  private queued = 0;

  constructor(
    private readonly handle: (item: T) => Promise<void>,
    private readonly onFailure: (error: unknown, item: T) => void,
    private readonly limits: QueueLimits = DEFAULT_LIMITS,
  ) {}

  /** Messages accepted and not yet started. */
  get size(): number {
    return this.queued;
  }

  /** Things with a lane (waiting or running); bounded by the limits, never by history. */
  get lanesInUse(): number {
    return this.lanes.size;
  }

  /** Queues `item` behind earlier ones of `key`; false (dropped) when a limit is reached. */
  push(key: string, item: T): boolean {
    let lane = this.lanes.get(key);
    if (lane && lane.waiting.length >= this.limits.maxPerThing) return false;
    if (this.queued >= this.limits.maxQueued) return false;
    if (!lane) {
      lane = { waiting: [], running: false };
      this.lanes.set(key, lane);
      this.ready.push(key);
    }
    lane.waiting.push(item);
    this.queued++;
    this.pump();
    return true;
  }

  private pump() {
    while (this.running < this.limits.concurrency && this.ready.length > 0) {
      const key = this.ready.shift()!;
      const lane = this.lanes.get(key)!;
      const item = lane.waiting.shift()!;
      this.queued--;
      this.running++;
      lane.running = true;
      void this.run(key, lane, item);
    }
  }

  /** Never rejects: a handler's failure (thrown or rejected) goes to `onFailure`. */
  private async run(key: string, lane: Lane<T>, item: T) {
    try {
      await this.handle(item);
    } catch (error) {
      try {
        this.onFailure(error, item);
      } catch {
        // Reporting must not stop the queue.
      }
    } finally {
      this.running--;
      lane.running = false;
      if (lane.waiting.length > 0) this.ready.push(key);
      else this.lanes.delete(key);
      this.pump();
    }
  }
}
