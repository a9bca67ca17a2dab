/**
 * A process's cache of rows the request path reads often, dropped by tag when the database
 * announces a change (feed.ts has the rules that keep it exact).
 */
import type { Tag } from "./announced.ts";

/** What a cache asks of its feed (feed.ts): whether it may serve, and what changed since. */
export interface Freshness {
  /** Whether caches may serve now. */
  readonly fresh: boolean;
  /** Whether caches may store now (notifications are heard). */
  readonly listening: boolean;
  /** Bumped by every notification and listener change. */
  readonly generation: number;
  /** Whether a value of `tags` read since `generation` may be stale. */
  changedSince(generation: number, tags: readonly string[]): boolean;
  /** Requests served from a cache. */
  hits: number;
}

/** A bounded map whose entries are dropped when one of their tags is announced. */
export class TaggedCache<V> {
  /**
   * Entries with their value as a settled promise, made once: a hit returns it without an async
   * function's promise per call (a tenth of an unchanged poll's own work was its six cache hits).
   */
  readonly #entries = new Map<string, { value: Promise<V>; tags: readonly Tag[] }>();
  readonly #byTag = new Map<string, Set<string>>();
  /** Loads running now, by key, with the generation they started in. */
  readonly #loading = new Map<string, { generation: number; value: Promise<V> }>();

  constructor(private readonly feed: Freshness, private readonly max: number) {}

  /**
   * The cached value of `key`, or `load()`'s, remembered under `tags(value)` when that is safe;
   * `tags` returns null for a value that must not be remembered (say, a row not found: its
   * insertion is not announced); a value one of whose tags was announced while it was read is
   * not remembered either. Callers that miss the same key at once share one load (a
   * restarted process's first requests, a reconnecting fleet), unless a change was announced
   * since it started: they then load again, as a read begun after the change would.
   */
  get(
    key: string,
    tags: (value: V) => readonly Tag[] | null,
    load: () => Promise<V>,
  ): Promise<V> {
    // After this process's own write, nothing is served until its sync comes back (feed.ts).
    const hit = this.feed.listening && this.feed.fresh ? this.#entries.get(key) : undefined;
    if (hit) {
      this.feed.hits++;
      return hit.value;
    }
    return this.#load(key, tags, load);
  }

  /** `get` on a miss: one load per key at once, stored when that is safe. */
  async #load(
    key: string,
    tags: (value: V) => readonly Tag[] | null,
    load: () => Promise<V>,
  ): Promise<V> {
    if (!this.feed.listening) return await load();
    const generation = this.feed.generation;
    const running = this.#loading.get(key);
    if (running?.generation === generation) return await running.value;
    const loading = load();
    this.#loading.set(key, { generation, value: loading });
    try {
      const value = await loading;
      // Stored even before this process's own writes came back: a value read before one of them
      // is dropped by its notification, which arrives before anything is served again.
      if (this.feed.listening) {
        const tagged = tags(value);
        if (tagged && !this.feed.changedSince(generation, tagged)) this.set(key, value, tagged);
      }
      return value;
    } finally {
      if (this.#loading.get(key)?.value === loading) this.#loading.delete(key);
    }
  }

  /** Drops one entry (the caller learned it is stale without a notification). */
  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.#byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.#byTag.delete(tag);
    }
  }

  /** Drops every entry tagged `tag`. */
  dropTag(tag: string): void {
    const keys = this.#byTag.get(tag);
    if (!keys) return;
    for (const key of [...keys]) this.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#byTag.clear();
  }

  get size(): number {
    return this.#entries.size;
  }

  private set(key: string, value: V, tags: readonly Tag[]): void {
    this.delete(key);
    if (this.#entries.size >= this.max) this.clear();
    this.#entries.set(key, { value: Promise.resolve(value), tags });
    for (const tag of tags) {
      let keys = this.#byTag.get(tag);
      if (!keys) this.#byTag.set(tag, keys = new Set());
      keys.add(key);
    }
  }
}
