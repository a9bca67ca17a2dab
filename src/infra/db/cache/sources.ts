/**
 * Where a process hears the database's change notifications: a listening PostgreSQL connection
 * of its own (with heartbeat and reconnection), or PGlite itself.
 */
import type { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import type { Log } from "../../lib/log.ts";
import { within } from "../../lib/deadline.ts";
import { CHANGE_CHANNEL, type ChangeFeed, type ChangeSource } from "./feed.ts";

/** The `application_name` of the listening connection. */
export const LISTENER_NAME = "dds-cache-listener";
/** How often the listening connection must answer, and how long it may take. */
const HEARTBEAT_MS = 5_000;
/** Reconnection delays of the listener, growing to the last one. */
const RETRY_MS = [100, 250, 500, 1_000, 2_000, 5_000];

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
