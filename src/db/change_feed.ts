/**
 * Caches of the request path with exact invalidation (issue 13). The triggers of
 * `migrations/0810_change_notifications.sql` announce every change to a row a cache is built
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
import { within } from "../lib/deadline.ts";

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

  /**
   * Resolves once every write seen so far has come back as a sync (at most `timeoutMs`), so the
   * notifications it caused have reached this process's listener, and PostgreSQL has signalled
   * every other listener. A request that wrote answers after this (src/http/handler.ts), so the
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
    for (const cache of this.#caches) cache.dropTag(payload);
  }

  /** The source listens (again): caches start empty. */
  started(): void {
    this.#generation++;
    for (const cache of this.#caches) cache.clear();
    this.#synced = this.#writes;
    this.#listening = true;
    this.#wake(true);
  }

  /** The source stopped listening: notifications may be missed until it starts again. */
  stopped(): void {
    this.#generation++;
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
        const answered = await within(
          current.unsafe("SELECT 1").then(() => true, () => false),
          HEARTBEAT_MS,
          false,
        );
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

/** Tables whose updates and deletes the triggers announce (migrations/0800). */
const UPDATES_ANNOUNCED = new Set([
  "users",
  "sessions",
  "personal_access_tokens",
  "oauth_accounts",
  "subscriptions",
  "pushes",
]);
/** Tables whose inserts are announced too (they change `/auth/me`). */
const INSERTS_ANNOUNCED = new Set(["oauth_accounts", "subscriptions"]);
/** Of `devices`, only a change of these columns (or a delete) is announced. */
const DEVICE_COLUMNS = new Set(["owner_id", "latest_push_id"]);

// deno-lint-ignore no-explicit-any -- Kysely's operation nodes, read structurally
type Node = any;

function tableOf(node: Node): string | undefined {
  const table = node?.kind === "AliasNode" ? node.node : node;
  return table?.kind === "TableNode" ? table.table.identifier.name : undefined;
}

/**
 * Whether a statement may make the triggers announce something: conservatively yes for anything
 * but a SELECT, an INSERT into a table without an INSERT trigger (an upsert of an announced
 * table counts) and an UPDATE of a table nothing announces, or of `devices` columns other than
 * owner and latest push (the state reports of a whole fleet). Deletes always count (their
 * cascades reach announced tables), as do raw SQL and data-modifying CTEs.
 */
export function mayAnnounce(node: Node): boolean {
  if (node.with) return true;
  switch (node.kind) {
    case "SelectQueryNode":
      return false;
    case "InsertQueryNode": {
      const table = tableOf(node.into);
      if (table === undefined) return true;
      if (INSERTS_ANNOUNCED.has(table)) return true;
      const upsert = node.onConflict !== undefined || node.onDuplicateKey !== undefined;
      return upsert && (UPDATES_ANNOUNCED.has(table) || table === "devices");
    }
    case "UpdateQueryNode": {
      const table = tableOf(node.table);
      if (table === undefined || UPDATES_ANNOUNCED.has(table)) return true;
      if (table !== "devices") return false;
      return !node.updates ||
        node.updates.some((u: Node) =>
          u.column?.kind !== "ColumnNode" || DEVICE_COLUMNS.has(u.column.column.name)
        );
    }
    default:
      return true;
  }
}

/**
 * Wraps `dialect` so `onWrite` hears of every committed statement that `mayAnnounce`: at once
 * outside a transaction, at COMMIT inside one.
 */
export function writeTrackingDialect(dialect: Dialect, onWrite: () => void): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => trackingDriver(dialect.createDriver(), onWrite),
  };
}

/** A connection handed out by the tracking driver, with its transaction state. */
interface Tracked extends DatabaseConnection {
  inner: DatabaseConnection;
  inTransaction: boolean;
  wrote: boolean;
}

function trackingDriver(driver: Driver, onWrite: () => void): Driver {
  const tracked = new WeakMap<DatabaseConnection, Tracked>();
  const wrap = (inner: DatabaseConnection): Tracked => {
    let out = tracked.get(inner);
    if (out) return out;
    const state: Tracked = {
      inner,
      inTransaction: false,
      wrote: false,
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const announces = mayAnnounce(query.query);
        try {
          return await inner.executeQuery<R>(query);
        } finally {
          if (announces) {
            if (state.inTransaction) state.wrote = true;
            else onWrite();
          }
        }
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
    tracked.set(inner, out = state);
    return out;
  };
  const innerOf = (c: DatabaseConnection) => (c as Partial<Tracked>).inner ?? c;
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === "acquireConnection") {
        return async (...args: unknown[]) =>
          wrap(
            await (target.acquireConnection as (...a: unknown[]) => Promise<DatabaseConnection>)
              .apply(target, args),
          );
      }
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (
        prop === "releaseConnection" || prop === "beginTransaction" ||
        prop === "commitTransaction" || prop === "rollbackTransaction" ||
        prop === "savepoint" || prop === "rollbackToSavepoint" || prop === "releaseSavepoint"
      ) {
        return async (connection: DatabaseConnection, ...rest: unknown[]) => {
          const state = connection as Partial<Tracked>;
          if (prop === "beginTransaction") {
            state.inTransaction = true;
            state.wrote = false;
          }
          try {
            return await value.call(target, innerOf(connection), ...rest);
          } finally {
            if (prop === "commitTransaction" || prop === "rollbackTransaction") {
              const wrote = state.wrote && prop === "commitTransaction";
              state.inTransaction = false;
              state.wrote = false;
              // A failed COMMIT may still have committed; counting it is only a wasted sync.
              if (wrote) onWrite();
            }
          }
        };
      }
      return value.bind(target);
    },
  });
}
