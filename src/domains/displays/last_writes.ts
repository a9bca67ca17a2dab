/**
 * What this process last wrote per key (a display's report, its panel) and when: the same state
 * within `everyMs` is not written again, and the check reads no database. An entry is taken
 * before its write, so polls that come while it runs (one display's retries, a load balancer's
 * burst) skip it instead of queueing on the row's lock; a write that fails gives its entry back
 * and the next poll writes. Bounded: cleared at `max` keys.
 */
export class LastWrites {
  private readonly last = new Map<string, { at: number; state: string }>();

  constructor(
    private readonly everyMs: number,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `write` unless `state` was written (or is being written) for `key` within `everyMs`. */
  async write(key: string, state: string, write: () => Promise<unknown>): Promise<void> {
    const last = this.last.get(key);
    if (last && last.state === state && this.now() - last.at < this.everyMs) return;
    if (this.last.size >= this.max) this.last.clear();
    const taken = { at: this.now(), state };
    this.last.set(key, taken);
    try {
      await write();
    } catch (error) {
      if (this.last.get(key) === taken) this.last.delete(key);
      throw error;
    }
  }
}
