/**
 * Bounded hand-off of device messages to their handler. The broker delivers as fast as devices
 * publish; handlers wait on the database. Without a bound, a device flooding `up/get_push` would
 * make the service hold one pending handler (and its payload) per message. Here each thing's
 * messages run one at a time and in order (a status `offline` never overtakes the `online` before
 * it), at most `concurrency` things run at once, and a message is refused when its thing already
 * has `maxPerThing` waiting (one device flooding) or when the backlog holds `maxQueued` messages
 * or `maxQueuedBytes` (a fleet past what the service can take: the caller sheds it, telling
 * the device to retry; docs/decisions.md "The fleet burst").
 */

export interface QueueLimits {
  /** Handlers running at once, across things. */
  concurrency: number;
  /** Messages waiting, across things. */
  maxQueued: number;
  /** Bytes waiting (payloads plus `ITEM_OVERHEAD_BYTES` each), across things. */
  maxQueuedBytes: number;
  /** Messages waiting for one thing. */
  maxPerThing: number;
}

/** What a waiting message costs besides its payload (topic parts, lane entry), roughly. */
export const ITEM_OVERHEAD_BYTES = 256;

/**
 * Defaults: handlers enough to fill the batched reads of a burst (each waits on a batch or a
 * pooled connection), a backlog that holds a reconnecting fleet of tens of thousands of devices
 * (a `get_push` is a few hundred bytes) within a fixed memory cap, and a small per-thing backlog.
 */
export const DEFAULT_LIMITS: QueueLimits = {
  concurrency: 64,
  maxQueued: 50_000,
  maxQueuedBytes: 32 * 1024 * 1024,
  maxPerThing: 16,
};

/** Handlers that finish nothing for this long (every slot taken, messages waiting) are stuck. */
export const STALL_MS = 5_000;

/** The first rate of a busy stretch is measured over this long from its first answer. */
export const FIRST_SAMPLE_MS = 1_000;

/** `queued`, or why not: the thing's own backlog is full, or the whole backlog is. */
export type PushResult = "queued" | "thing_full" | "full";

interface Lane<T> {
  waiting: Array<{ item: T; bytes: number }>;
  running: boolean;
}

/** Per-key FIFO lanes under a global concurrency limit; `push` says whether it was accepted. */
export class InboundQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Keys with waiting messages and nothing running, in arrival order (`head` is the next). */
  private ready: string[] = [];
  private head = 0;
  private running = 0;
  private queued = 0;
  private queuedBytes = 0;
  /**
   * The drain rate, measured only while every handler slot is taken and messages wait, so it
   * is the service's capacity rather than the arrival rate: handlers finished meanwhile, and time.
   */
  private completed = 0;
  private busyMs = 0;
  private busySince = 0;
  private saturated = false;
  private sample = { completed: 0, busyMs: 0 };
  private rate = 0;
  private measured = false;
  /** The first handler finished while saturated (the first rate's clock starts there). */
  private firstAnswered = false;

  constructor(
    private readonly handle: (item: T) => Promise<void>,
    private readonly onFailure: (error: unknown, item: T) => void,
    private readonly limits: QueueLimits = DEFAULT_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Seconds a message queued now would wait before its handler starts: the backlog over the
   * handlers finished per second while messages waited (idle time, and time when messages come
   * slower than they are handled, do not count: neither says how fast the service can go),
   * over samples of at least 500 ms (the first `FIRST_SAMPLE_MS`; a higher rate is taken at once, a lower one by halves). 0 until a first sample is measured; Infinity when nothing finished for `STALL_MS`.
   */
  expectedWaitSeconds(): number {
    const busy = this.busyMs + (this.saturated ? this.now() - this.busySince : 0);
    const measured = busy - this.sample.busyMs;
    const finished = this.completed - this.sample.completed;
    // A half second that finished nothing is not yet a stall: at the start of a fleet's burst the
    // loop is busy taking the burst in (the first answers wait behind it for their PUBACKs), and
    // a rate of 0 then shed every device of a burst the service answered in 3 s (issue 40).
    // The first sample is longer: a fleet's burst may still be arriving (and taking most of the
    // loop) for a second after the first answer, which a half-second sample read as the rate.
    const window = this.measured ? 500 : FIRST_SAMPLE_MS;
    if (measured >= window && (finished > 0 || measured >= STALL_MS)) {
      const rate = finished / (measured / 1000);
      // Up at once, down by halves: the first samples of a burst are taken while the loop also
      // parses the burst's arrivals, and would shed devices the service then answers in time.
      this.rate = this.measured ? Math.max(rate, (this.rate + rate) / 2) : rate;
      this.measured = true;
      this.sample = { completed: this.completed, busyMs: busy };
    }
    if (!this.measured || this.queued === 0) return 0;
    // Handlers that finished nothing in a sample (stuck on the database): no end in sight.
    return this.rate > 0 ? this.queued / this.rate : Infinity;
  }

  /** Messages accepted and not yet started. */
  get size(): number {
    return this.queued;
  }

  /** Bytes of the messages accepted and not yet started (with their overhead). */
  get bytes(): number {
    return this.queuedBytes;
  }

  /** Things with a lane (waiting or running); bounded by the limits, never by history. */
  get lanesInUse(): number {
    return this.lanes.size;
  }

  /** Queues `item` (of `payloadBytes`) behind earlier ones of `key`, unless a limit is reached. */
  push(key: string, item: T, payloadBytes = 0): PushResult {
    let lane = this.lanes.get(key);
    if (lane && lane.waiting.length >= this.limits.maxPerThing) return "thing_full";
    const bytes = payloadBytes + ITEM_OVERHEAD_BYTES;
    if (
      this.queued >= this.limits.maxQueued ||
      this.queuedBytes + bytes > this.limits.maxQueuedBytes
    ) return "full";
    if (!lane) {
      lane = { waiting: [], running: false };
      this.lanes.set(key, lane);
      this.ready.push(key);
    }
    lane.waiting.push({ item, bytes });
    this.queued++;
    this.queuedBytes += bytes;
    this.pump();
    this.noteSaturation();
    return "queued";
  }

  private pump() {
    while (this.running < this.limits.concurrency && this.head < this.ready.length) {
      // An index rather than `shift()`: a fleet's backlog is tens of thousands of keys.
      const key = this.ready[this.head++];
      if (this.head > 1024 && this.head * 2 > this.ready.length) {
        this.ready = this.ready.slice(this.head);
        this.head = 0;
      }
      const lane = this.lanes.get(key)!;
      const { item, bytes } = lane.waiting.shift()!;
      this.queued--;
      this.queuedBytes -= bytes;
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
      if (this.saturated) {
        // Before a first rate, its clock starts at the first answer: the wait for that one is
        // the burst's latency (the loop taking the burst in), not the rate it is answered at.
        if (!this.measured && !this.firstAnswered) {
          this.firstAnswered = true;
          this.sample = {
            completed: this.completed,
            busyMs: this.busyMs + this.now() - this.busySince,
          };
        } else this.completed++;
      }
      this.running--;
      lane.running = false;
      if (lane.waiting.length > 0) this.ready.push(key);
      else this.lanes.delete(key);
      this.pump();
      this.noteSaturation();
    }
  }

  /** Starts or ends a stretch of time with messages waiting (the drain rate's clock). */
  private noteSaturation() {
    // Every slot taken and more waiting (one device's messages waiting on its own lane, with
    // slots free, says nothing of the capacity).
    const waiting = this.queued > 0 && this.running >= this.limits.concurrency;
    if (waiting === this.saturated) return;
    const now = this.now();
    if (waiting) this.busySince = now;
    else this.busyMs += now - this.busySince;
    this.saturated = waiting;
  }
}
