import assert from "node:assert/strict";
import { sql } from "kysely";
import { connect } from "../../infra/db/connect.ts";
import { migrate } from "../../infra/db/migrator.ts";
import type { DB } from "../../schema.ts";
import { FixedWindowLimiter, hitRateWindow } from "./rate_limit.ts";

Deno.test("in-process limiter: N hits per window per key, then the seconds to wait", () => {
  const limiter = new FixedWindowLimiter(2, 60_000);
  assert.equal(limiter.hit("a", 0), null);
  assert.equal(limiter.hit("a", 1000), null);
  assert.equal(limiter.hit("a", 1500), 59);
  assert.equal(limiter.hit("b", 1500), null);
  assert.equal(limiter.hit("a", 60_000), null);
});

// The embedded database in a temporary directory: the statement's logic, not its concurrency
// (tests/scale_test.ts runs concurrent hits from two servers on PostgreSQL).
Deno.test("database limiter: N hits per window per key, then the seconds to wait", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dds-rate-" });
  const connection = await connect<DB>({ dataDir: dir });
  try {
    await migrate(connection.db);
    const db = connection.db;
    assert.equal(await hitRateWindow(db, "a", 2, 3600), null);
    assert.equal(await hitRateWindow(db, "a", 2, 3600), null);
    const wait = await hitRateWindow(db, "a", 2, 3600);
    assert.ok(wait !== null && wait >= 1 && wait <= 3600, `wait ${wait}`);
    // Refused hits are not counted, and another key has its own window.
    assert.equal(await hitRateWindow(db, "b", 2, 3600), null);
    const { rows } = await sql<{ key: string; hits: number }>`
      SELECT key, hits FROM factory_rate_windows ORDER BY key`.execute(db);
    assert.deepEqual(rows.map((r) => [r.key, Number(r.hits)]), [["a", 2], ["b", 1]]);
    // An earlier window of the key is pruned when its next one opens.
    await sql`UPDATE factory_rate_windows SET window_start = window_start - interval '2 hours'
      WHERE key = 'a'`.execute(db);
    assert.equal(await hitRateWindow(db, "a", 2, 3600), null);
    const { rows: left } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM factory_rate_windows WHERE key = 'a'`.execute(db);
    assert.equal(Number(left[0].n), 1);
  } finally {
    await connection.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
