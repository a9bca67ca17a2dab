/**
 * Fixed-window rate limits counted in PostgreSQL, so every process shares them. A domain keeps
 * its windows in a table of its own (`key`, `window_start`, `hits`, primary key on the first
 * two) and names it here: the factory's downloads, the displays' setups.
 */
import { sql } from "kysely";
import type { Db } from "../../schema.ts";

/** The tables laid out as a rate window (each owned by its domain). */
export type RateWindowTable = "factory_rate_windows" | "display_rate_windows";

/**
 * Counts one hit of `key` in the current window of `windowSeconds`; returns null when allowed,
 * else the seconds until the window reopens. One statement: the upsert increments only while
 * under `limit`, and concurrent hits on the same row queue on its lock, so no two of them can
 * both take the last slot.
 */
export async function hitRateWindow(
  db: Db,
  table: RateWindowTable,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<number | null> {
  const t = sql.table(table);
  const { rows } = await sql<{ hits: number | null; wait: number }>`
    WITH w AS (
      SELECT to_timestamp(floor(extract(epoch FROM now())::float8 / ${windowSeconds}) *
        ${windowSeconds}) AS start
    ), pruned AS (
      DELETE FROM ${t}
      WHERE key = ${key} AND window_start < (SELECT start FROM w)
    ), counted AS (
      INSERT INTO ${t} AS r (key, window_start, hits)
      SELECT ${key}, start, 1 FROM w
      ON CONFLICT (key, window_start) DO UPDATE SET hits = r.hits + 1
      WHERE r.hits < ${limit}
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

/**
 * Takes back one hit of `key` in the current window (a reservation that turned out not to
 * count: a right claim code). A window that has closed meanwhile is left as it is.
 */
export async function releaseRateWindow(
  db: Db,
  table: RateWindowTable,
  key: string,
  windowSeconds: number,
): Promise<void> {
  const t = sql.table(table);
  await sql`
    UPDATE ${t} SET hits = hits - 1
    WHERE key = ${key} AND hits > 0 AND window_start = to_timestamp(
      floor(extract(epoch FROM now())::float8 / ${windowSeconds}) * ${windowSeconds})
  `.execute(db);
}
