/**
 * Caches of the request path with exact invalidation (issue 13). The triggers of
 * `migrations/0810_change_notifications.sql` (declared in announced.ts) announce every change to a row a cache is built
 * from (`session:<id>`, `user:<id>`, `pat:<id>`, `device:<id>`, `push:<id>`) on the `dds_cache`
 * channel, in the changing transaction; PostgreSQL delivers it at commit to every listening
 * process. Each process listens on a connection of its own and drops the entries tagged with
 * what changed. The rules that keep a cache from serving what the database no longer says:
 *
 * - While the process is not listening (before the first LISTEN, after its connection dropped,
 *   until LISTEN succeeds again) every cache is empty and bypassed: a missed notification can
 *   never leave a stale entry behind.
 * - A value read from the database is stored only if no notification of one of its tags arrived
 *   and the listener did not drop while it was read (`changedSince`), so a change committed
 *   during the read cannot be overwritten by the older value. Only its own tags count (issue 40):
 *   with the global rule, a fleet's writes (a panel, a confirmation) announced something every
 *   few milliseconds and the polls of every other display stored nothing, however often read.
 * - Read-your-writes in the writing process: a notification reaches this process's own listener
 *   a moment after its commit returned. Every write through Kysely marks the feed unsynced and
 *   sends a `sync:<feed>:<n>` notification; until that echo comes back (it is delivered after
 *   the write's own notifications, in commit order) the caches serve nothing. They still store
 *   what is read meanwhile (issue 40: a fleet's polls write all the time, and the caches stayed
 *   empty): a value read before one of the writes is dropped by that write's notification,
 *   which arrives before the sync lets anything be served.
 * - On PGlite (one process) notifications are delivered while the commit is answered, before
 *   the writer continues, so no sync round trip is needed.
 *
 * Another process sees a change once PostgreSQL delivered the notification to it: the fan-out
 * time of LISTEN/NOTIFY (well under a millisecond on a healthy connection). A silently dead
 * listening connection is found by a heartbeat within `HEARTBEAT_MS` twice.
 */
import type { Log } from "../../lib/log.ts";
import { TaggedCache } from "./tagged_cache.ts";

/** How many announced tags a feed remembers for the loads running (`changedSince`). */
const MAX_ANNOUNCED = 10_000;

/** The channel of `dds_notify_change()`. */
export const CHANGE_CHANNEL = "dds_cache";

/** Where the notifications come from: a listening connection, or PGlite itself. */
export interface ChangeSource {
  /** Starts listening; resolves once the first LISTEN succeeded or failed. */
  start(feed: ChangeFeed): Promise<void>;
  /** Sends `sync:<n>` through the database (PostgreSQL only). */
  sync?(payload: string): Promise<void>;
  close(): Promise<void>;
}

/** The invalidation state of one process, shared by its caches. */
export class ChangeFeed {
  #listening = false;
  #generation = 0;
  /** The generation each recently announced tag was last announced in. */
  readonly #announcedAt = new Map<string, number>();
  /** A load begun before this generation stores nothing (the listener dropped, or forgot). */
  #floor = 0;
  /** Writes seen, and the highest write whose `sync` echo came back. */
  #writes = 0;
  #synced = 0;
  #syncing = false;
  readonly #caches: TaggedCache<unknown>[] = [];
  #source?: ChangeSource;
  readonly #syncPrefix = `sync:${crypto.randomUUID()}:`;
  /** Requests served from a cache, for tests and the curious. */
  hits = 0;

  constructor(private readonly log?: Log) {}

  /** A feed that never listens: its caches always read through (tests, tools). */
  static disabled(): ChangeFeed {
    return new ChangeFeed();
  }

  /** Whether caches may serve now (they store whenever `listening`). */
  get fresh(): boolean {
    return this.#listening && this.#writes === this.#synced;
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * Whether a value read since `generation` may be stale: one of its `tags` was announced since,
   * or the listener dropped (or the record of announcements was cleared) since.
   */
  changedSince(generation: number, tags: readonly string[]): boolean {
    if (generation < this.#floor) return true;
    for (const tag of tags) {
      if ((this.#announcedAt.get(tag) ?? -1) > generation) return true;
    }
    return false;
  }

  /** Loads begun before now store nothing; the record of announcements starts again. */
  #forget(): void {
    this.#floor = this.#generation;
    this.#announcedAt.clear();
  }

  get listening(): boolean {
    return this.#listening;
  }

  /** A new cache of at most `max` entries, invalidated by this feed. */
  cache<V>(max = 10_000): TaggedCache<V> {
    const cache = new TaggedCache<V>(this, max);
    this.#caches.push(cache as TaggedCache<unknown>);
    return cache;
  }

  /** Starts listening through `source`. */
  async start(source: ChangeSource): Promise<void> {
    this.#source = source;
    await source.start(this);
  }

  async close(): Promise<void> {
    this.stopped();
    await this.#source?.close();
  }

  /**
   * Resolves once every write seen so far has come back as a sync (at most `timeoutMs`), so the
   * notifications it caused have reached this process's listener, and PostgreSQL has signalled
   * every other listener. A request that wrote answers after this (src/infra/http/handler.ts), so the
   * caller's next request, to any process, finds the change announced.
   */
  settled(timeoutMs = 1_000): Promise<void> {
    if (!this.#listening || this.#synced >= this.#writes) return Promise.resolve();
    const target = this.#writes;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const waiter = { target, resolve: done };
      this.#waiters.push(waiter);
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  #waiters: Array<{ target: number; resolve: () => void }> = [];

  #wake(all: boolean): void {
    if (this.#waiters.length === 0) return;
    const ready = this.#waiters.filter((w) => all || w.target <= this.#synced);
    this.#waiters = all ? [] : this.#waiters.filter((w) => w.target > this.#synced);
    for (const waiter of ready) waiter.resolve();
  }

  /** A notification of `dds_cache` arrived. */
  notified(payload: string): void {
    if (payload.startsWith("sync:")) {
      // Every process hears every sync; only this feed's own count.
      if (!payload.startsWith(this.#syncPrefix)) return;
      const n = Number(payload.slice(this.#syncPrefix.length));
      if (n > this.#synced && n <= this.#writes) this.#synced = n;
      this.#wake(false);
      return;
    }
    this.#generation++;
    // Bounded: past this many tags, loads begun before now store nothing instead.
    if (this.#announcedAt.size >= MAX_ANNOUNCED) this.#forget();
    this.#announcedAt.set(payload, this.#generation);
    for (const cache of this.#caches) cache.dropTag(payload);
  }

  /** The source listens (again): caches start empty. */
  started(): void {
    this.#generation++;
    this.#forget();
    for (const cache of this.#caches) cache.clear();
    this.#synced = this.#writes;
    this.#listening = true;
    this.#wake(true);
  }

  /** The source stopped listening: notifications may be missed until it starts again. */
  stopped(): void {
    this.#generation++;
    this.#forget();
    this.#listening = false;
    for (const cache of this.#caches) cache.clear();
    this.#wake(true);
  }

  /**
   * Something was written through Kysely (PostgreSQL): caches are bypassed until a `sync`
   * sent after it comes back, so this process reads its own writes.
   */
  wrote(): void {
    if (!this.#source?.sync) return;
    this.#writes++;
    this.#generation++;
    this.#requestSync();
  }

  #requestSync(): void {
    if (this.#syncing || !this.#listening || this.#synced === this.#writes) return;
    this.#syncing = true;
    const target = this.#writes;
    this.#source!.sync!(`${this.#syncPrefix}${target}`)
      .catch((error) => this.log?.error("cache sync failed", { error: String(error) }))
      .finally(() => {
        this.#syncing = false;
        // Writes that came while this sync was on its way need one more.
        if (this.#writes > target) this.#requestSync();
      });
  }
}
