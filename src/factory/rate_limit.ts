/**
 * Fixed-window rate limits per key. The factory download limit (SPEC 4.8/8) is counted in
 * PostgreSQL (migrations/0800_factory_rate_windows.sql) so that N API processes share it; the
 * in-process limiter only throttles the audit rows of anonymous refusals (a flood guard whose
 * bound may well be per process).
 */
import { sql } from "kysely";
import type { Db } from "../schema.ts";

/**
 * Counts one hit of `key` in the current window of `windowSeconds`; returns null when allowed,
 * else the seconds until the window reopens. One statement: the upsert increments only while
 * under `limit`, and concurrent hits on the same row queue on its lock, so no two of them can
 * both take the last slot.
 */
export async function hitRateWindow(
  db: Db,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<number | null> {
  const { rows } = await sql<{ hits: number | null; wait: number }>`
    WITH w AS (
      SELECT to_timestamp(floor(extract(epoch FROM now())::float8 / ${windowSeconds}) *
        ${windowSeconds}) AS start
    ), pruned AS (
      DELETE FROM factory_rate_windows
      WHERE key = ${key} AND window_start < (SELECT start FROM w)
    ), counted AS (
      INSERT INTO factory_rate_windows (key, window_start, hits)
      SELECT ${key}, start, 1 FROM w
      ON CONFLICT (key, window_start) DO UPDATE SET hits = factory_rate_windows.hits + 1
      WHERE factory_rate_windows.hits < ${limit}
      RETURNING hits
    )
    SELECT (SELECT hits FROM counted) AS hits,
      ceil(extract(epoch FROM (SELECT start FROM w) + make_interval(secs => ${windowSeconds})
        - now()))::int AS wait
  `.execute(db);
  const row = rows[0];
  if (row.hits !== null) return null;
  return Math.max(1, Number(row.wait));
}

/** In-process fixed window (per process by design: see the file comment). */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(readonly limit: number, readonly windowMs: number) {}

  /** Counts one hit; returns null when allowed, else the seconds until the window reopens. */
  hit(key: string, now = Date.now()): number | null {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.limit) {
      return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    }
    w.count++;
    return null;
  }
}
