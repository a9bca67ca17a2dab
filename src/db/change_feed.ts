/**
 * Caches of the request path with exact invalidation (issue 13). The triggers of
 * `migrations/0800_change_notifications.sql` announce every change to a row a cache is built
 * from (`session:<id>`, `user:<id>`, `pat:<id>`, `device:<id>`, `push:<id>`) on the `dds_cache`
 * channel, in the changing transaction; PostgreSQL delivers it at commit to every listening
 * process. Each process listens on a connection of its own and drops the entries tagged with
 * what changed. The rules that keep a cache from serving what the database no longer says:
 *
 * - While the process is not listening (before the first LISTEN, after its connection dropped,
 *   until LISTEN succeeds again) every cache is empty and bypassed: a missed notification can
 *   never leave a stale entry behind.
 * - A value read from the database is stored only if no notification arrived and the listener
 *   did not drop while it was read (one generation counter), so a change committed during the
 *   read cannot be overwritten by the older value.
 * - Read-your-writes in the writing process: a notification reaches this process's own listener
 *   a moment after its commit returned. Every write through Kysely marks the feed unsynced and
 *   sends a `sync:<feed>:<n>` notification; until that echo comes back (it is delivered after
 *   the write's own notifications, in commit order) the caches are bypassed.
 * - On PGlite (one process) notifications are delivered while the commit is answered, before
 *   the writer continues, so no sync round trip is needed.
 *
 * Another process sees a change once PostgreSQL delivered the notification to it: the fan-out
 * time of LISTEN/NOTIFY (well under a millisecond on a healthy connection). A silently dead
 * listening connection is found by a heartbeat within `HEARTBEAT_MS` twice.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from "kysely";
import postgres from "postgres";
import type { Log } from "../lib/log.ts";

/** The channel of `dds_notify_change()`. */
export const CHANGE_CHANNEL = "dds_cache";
/** The `application_name` of the listening connection. */
export const LISTENER_NAME = "dds-cache-listener";
/** How often the listening connection must answer, and how long it may take. */
const HEARTBEAT_MS = 5_000;
/** Reconnection delays of the listener, growing to the last one. */
const RETRY_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/** A bounded map whose entries are dropped when one of their tags is announced. */
export class TaggedCache<V> {
  readonly #entries = new Map<string, { value: V; tags: readonly string[] }>();
  readonly #byTag = new Map<string, Set<string>>();

  constructor(private readonly feed: ChangeFeed, private readonly max: number) {}

  /**
   * The cached value of `key`, or `load()`'s, remembered under `tags(value)` when that is safe;
   * `tags` returns null for a value that must not be remembered (say, a row not found: its
   * insertion is not announced).
   */
  async get(
    key: string,
    tags: (value: V) => readonly string[] | null,
    load: () => Promise<V>,
  ): Promise<V> {
    if (!this.feed.fresh) return await load();
    const hit = this.#entries.get(key);
    if (hit) {
      this.feed.hits++;
      return hit.value;
    }
    const generation = this.feed.generation;
    const value = await load();
    if (this.feed.fresh && this.feed.generation === generation) {
      const tagged = tags(value);
      if (tagged) this.set(key, value, tagged);
    }
    return value;
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

  private set(key: string, value: V, tags: readonly string[]): void {
    this.delete(key);
    if (this.#entries.size >= this.max) this.clear();
    this.#entries.set(key, { value, tags });
    for (const tag of tags) {
      let keys = this.#byTag.get(tag);
      if (!keys) this.#byTag.set(tag, keys = new Set());
      keys.add(key);
    }
  }
}

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

  /** Whether caches may serve and store now. */
  get fresh(): boolean {
    return this.#listening && this.#writes === this.#synced;
  }

  get generation(): number {
    return this.#generation;
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

  /** A notification of `dds_cache` arrived. */
  notified(payload: string): void {
    if (payload.startsWith("sync:")) {
      // Every process hears every sync; only this feed's own count.
      if (!payload.startsWith(this.#syncPrefix)) return;
      const n = Number(payload.slice(this.#syncPrefix.length));
      if (n > this.#synced && n <= this.#writes) this.#synced = n;
      return;
    }
    this.#generation++;
    for (const cache of this.#caches) cache.dropTag(payload);
  }

  /** The source listens (again): caches start empty. */
  started(): void {
    this.#generation++;
    for (const cache of this.#caches) cache.clear();
    this.#synced = this.#writes;
    this.#listening = true;
  }

  /** The source stopped listening: notifications may be missed until it starts again. */
  stopped(): void {
    this.#generation++;
    this.#listening = false;
    for (const cache of this.#caches) cache.clear();
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

/**
 * Listens on a dedicated PostgreSQL connection, reconnecting with backoff; while it is down the
 * feed is stopped. `sync` is sent on that connection too (a session hears its own NOTIFY), so it
 * is never counted as a write of the service.
 */
export function postgresChangeSource(url: string, log?: Log): ChangeSource {
  let stopped = false;
  let client: postgres.Sql | undefined;
  let wake: (() => void) | undefined;
  let running: Promise<void> | undefined;

  async function listenOnce(
    feed: ChangeFeed,
    first: () => void,
    quiet: boolean,
  ): Promise<boolean> {
    let closed!: () => void;
    const whenClosed = new Promise<void>((resolve) => closed = resolve);
    // `onnotify` is an option postgres.js reads (its own `listen` uses it) but does not type.
    const options = {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      // Named, so an operator (and a test) can tell it in pg_stat_activity.
      connection: { application_name: LISTENER_NAME },
      onnotice: () => {},
      onnotify: (channel: string, payload: string) => {
        if (channel === CHANGE_CHANNEL) feed.notified(payload);
      },
      onclose: () => closed(),
    };
    client = postgres(url, options as postgres.Options<Record<string, never>>);
    const current = client;
    try {
      await current.unsafe(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      first();
      await current.end({ timeout: 0 }).catch(() => {});
      if (!stopped && !quiet) {
        log?.error("cache listener cannot listen (retrying)", { error: String(error) });
      }
      return false;
    }
    feed.started();
    first();
    let beat: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const heartbeat = new Promise<void>((resolve) => {
      const tick = async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const answered = await Promise.race([
          current.unsafe("SELECT 1").then(() => true, () => false),
          new Promise<boolean>((r) => timer = setTimeout(() => r(false), HEARTBEAT_MS)),
        ]);
        clearTimeout(timer);
        if (done) return;
        if (!answered) return resolve();
        beat = setTimeout(tick, HEARTBEAT_MS);
      };
      beat = setTimeout(tick, HEARTBEAT_MS);
    });
    await Promise.race([whenClosed, heartbeat, new Promise<void>((r) => wake = r)]);
    done = true;
    clearTimeout(beat);
    feed.stopped();
    await current.end({ timeout: 0 }).catch(() => {});
    return true;
  }

  return {
    start(feed) {
      let first!: () => void;
      const ready = new Promise<void>((resolve) => first = resolve);
      running = (async () => {
        let attempt = 0;
        while (!stopped) {
          const listened = await listenOnce(feed, first, attempt > 0);
          if (stopped) break;
          if (listened) {
            log?.error("cache listener lost its connection; caches off until it listens again");
            attempt = 0;
          }
          await new Promise((r) => {
            const timer = setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
            wake = () => {
              clearTimeout(timer);
              r(undefined);
            };
          });
          attempt++;
        }
      })();
      return ready;
    },
    async sync(payload) {
      if (!client) return;
      await client.unsafe("SELECT pg_notify($1, $2)", [CHANGE_CHANNEL, payload]);
    },
    async close() {
      stopped = true;
      wake?.();
      await client?.end({ timeout: 0 }).catch(() => {});
      await running;
    },
  };
}

/** PGlite delivers notifications as the committing statement is answered, in this process. */
export function pgliteChangeSource(pglite: PGlite): ChangeSource {
  let unlisten: (() => Promise<void>) | undefined;
  return {
    async start(feed) {
      unlisten = await pglite.listen(CHANGE_CHANNEL, (payload) => feed.notified(payload));
      feed.started();
    },
    async close() {
      if (!pglite.closed) await unlisten?.().catch(() => {});
    },
  };
}

/**
 * Wraps `dialect` so every statement that is not a plain SELECT (a write, a COMMIT) tells
 * `onWrite` once it completed.
 */
export function writeTrackingDialect(dialect: Dialect, onWrite: () => void): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => trackingDriver(dialect.createDriver(), onWrite),
  };
}

function trackingDriver(driver: Driver, onWrite: () => void): Driver {
  const wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    let out = wrapped.get(connection);
    if (out) return out;
    out = {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        try {
          return await connection.executeQuery<R>(query);
        } finally {
          if (query.query.kind !== "SelectQueryNode") onWrite();
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
    wrapped.set(connection, out);
    return out;
  };
  const unwrap = new WeakMap<DatabaseConnection, DatabaseConnection>();
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === "acquireConnection") {
        return async () => {
          const connection = await target.acquireConnection();
          const out = wrap(connection);
          unwrap.set(out, connection);
          return out;
        };
      }
      if (
        prop === "releaseConnection" || prop === "beginTransaction" ||
        prop === "commitTransaction" || prop === "rollbackTransaction" ||
        prop === "savepoint" || prop === "rollbackToSavepoint" || prop === "releaseSavepoint"
      ) {
        const fn = Reflect.get(target, prop, target) as (
          c: DatabaseConnection,
          ...rest: unknown[]
        ) => Promise<void>;
        if (typeof fn !== "function") return fn;
        return async (connection: DatabaseConnection, ...rest: unknown[]) => {
          try {
            return await fn.call(target, unwrap.get(connection) ?? connection, ...rest);
          } finally {
            if (prop === "commitTransaction") onWrite();
          }
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
