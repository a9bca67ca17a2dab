/**
 * Keyset anchors are exact to the microsecond on the database the tests run on (PGlite or
 * PostgreSQL): postgres.js sent a `timestamptz` parameter through a JS Date, so on PostgreSQL
 * the next page of pushes, raw items, analyze runs or display logs skipped the rows created in
 * the anchor's millisecond.
 */
import { sql } from "kysely";
import { olderThan } from "../src/infra/db/keyset.ts";
import { assertEquals } from "./helpers/assert.ts";
import { startTestServer } from "./helpers/server.ts";

Deno.test({
  name: "keyset: rows older than the anchor by a microsecond are on the next page",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const server = await startTestServer();
    try {
      const anchor = {
        createdAt: "2026-11-26T10:00:00.123456Z",
        id: "01900000-0000-7000-8000-000000000005",
      };
      const rows = await sql<{ name: string; older: boolean }>`
        SELECT name, ${olderThan(anchor)} AS older FROM (VALUES
          ('a microsecond before', '2026-11-26 10:00:00.123455+00'::timestamptz,
            '01900000-0000-7000-8000-000000000009'::uuid),
          ('same time, lower id', '2026-11-26 10:00:00.123456+00'::timestamptz,
            '01900000-0000-7000-8000-000000000001'::uuid),
          ('the anchor itself', '2026-11-26 10:00:00.123456+00'::timestamptz,
            '01900000-0000-7000-8000-000000000005'::uuid),
          ('a microsecond after', '2026-11-26 10:00:00.123457+00'::timestamptz,
            '01900000-0000-7000-8000-000000000001'::uuid)
        ) AS t(name, created_at, id)`.execute(server.app.services.db);
      assertEquals(
        Object.fromEntries(rows.rows.map((r) => [r.name, r.older])),
        {
          "a microsecond before": true,
          "same time, lower id": true,
          "the anchor itself": false,
          "a microsecond after": false,
        },
      );
    } finally {
      await server.close();
    }
  },
});
