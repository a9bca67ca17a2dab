/**
 * Coalesces single-key reads into one query per batch: a key asked for while a batch is in
 * flight waits for the next one, so a burst of device messages costs a few `IN (...)` queries
 * rather than one query each. A key is always read by a query that starts after it was asked
 * for (never answered from an earlier read), so callers see no staler data than a direct query.
 *
 * `gather: "turn"` waits for the rest of the event loop's turn before a batch starts, rather than
 * the current microtasks: keys asked for by separate I/O callbacks (a fleet's CONNECTs or
 * `get_push`, one socket read each) then share a query instead of one each (issue 40).
 *
 * The wait is a zero-delay timer, not `setImmediate`: in Deno a loop with immediates pending never
 * parks, and its network events are then polled only every ~61 iterations (the runtime's I/O
 * driver interval), so a chain of batches each scheduled by the last held every socket and HTTP
 * request for 100-250 ms at a time (issue 40: `/health` p99 242-331 ms during a fleet's burst).
 */

export interface BatcherOptions {
  /** Keys per query at most. */
  maxBatch: number;
  /** Queries in flight at once. */
  concurrency: number;
  /** Same-tick callers only (`microtask`, the default) or the whole loop turn's (`turn`). */
  gather?: "microtask" | "turn";
}

export class Batcher<K, V> {
  #waiting = new Map<
    K,
    Array<{ resolve(value: V | undefined): void; reject(error: unknown): void }>
  >();
  #running = 0;
  #scheduled = false;

  constructor(
    private readonly fetch: (keys: K[]) => Promise<Map<K, V>>,
    private readonly options: BatcherOptions = { maxBatch: 500, concurrency: 2 },
  ) {}

  /** The value of `key`, or undefined when the batch's query did not return it. */
  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const callers = this.#waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.#waiting.set(key, [{ resolve, reject }]);
      // Same-tick callers join one batch: the flush runs after the current microtasks (or, with
      // `gather: "turn"`, after this turn's other I/O callbacks).
      if (this.#running < this.options.concurrency) this.#schedule();
    });
  }

  #schedule() {
    if (this.options.gather !== "turn") return queueMicrotask(() => this.#flush());
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      this.#flush();
    }, 0);
  }

  #flush() {
    if (this.#waiting.size === 0 || this.#running >= this.options.concurrency) return;
    const batch = new Map<
      K,
      Array<{ resolve(value: V | undefined): void; reject(error: unknown): void }>
    >();
    for (const [key, callers] of this.#waiting) {
      if (batch.size >= this.options.maxBatch) break;
      batch.set(key, callers);
    }
    for (const key of batch.keys()) this.#waiting.delete(key);
    this.#running++;
    this.fetch([...batch.keys()]).then(
      (found) => {
        for (const [key, callers] of batch) for (const c of callers) c.resolve(found.get(key));
      },
      (error) => {
        for (const callers of batch.values()) for (const c of callers) c.reject(error);
      },
    ).finally(() => {
      this.#running--;
      if (this.options.gather === "turn") this.#schedule();
      else this.#flush();
    });
  }
}
