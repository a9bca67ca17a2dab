/**
 * Coalesces single-key reads into one query per batch: a key asked for while a batch is in
 * flight waits for the next one, so a burst of device messages costs a few `IN (...)` queries
 * rather than one query each. A key is always read by a query that starts after it was asked
 * for (never answered from an earlier read), so callers see no staler data than a direct query.
 */
export class Batcher<K, V> {
  #waiting = new Map<
    K,
    Array<{ resolve(value: V | undefined): void; reject(error: unknown): void }>
  >();
  #running = 0;

  constructor(
    private readonly fetch: (keys: K[]) => Promise<Map<K, V>>,
    private readonly options: { maxBatch: number; concurrency: number } = {
      maxBatch: 500,
      concurrency: 2,
    },
  ) {}

  /** The value of `key`, or undefined when the batch's query did not return it. */
  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const callers = this.#waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.#waiting.set(key, [{ resolve, reject }]);
      // Same-tick callers join one batch: the flush runs after the current microtasks.
      if (this.#running < this.options.concurrency) queueMicrotask(() => this.#flush());
    });
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
      this.#flush();
    });
  }
}
