/**
 * The patched postgres.js (vendor/postgres) on a connection the server ends while a result is
 * streaming in: the next query on the same connection, once it has reconnected, answers exactly
 * its own rows. Unpatched, the row counter of the interrupted result carried over, and the next
 * result began with holes where that result's rows had been (seen as a 500 under
 * tests/faults_postgres_test.ts's load).
 */
import postgres from "postgres";
import { assert, assertEquals } from "./helpers/assert.ts";
import { pgAvailable, privatePgCluster } from "./helpers/pg_cluster.ts";

Deno.test({
  name: "postgres driver: a result cut off by a terminated backend leaves nothing in the next one",
  ignore: !pgAvailable(),
  fn: async () => {
    const cluster = await privatePgCluster();
    // No type query on connect: nothing else runs on the reconnected connection before the next
    // query (as on a connection whose types are known), so a stale row count shows at once.
    const sql = postgres(cluster.url, { max: 1, fetch_types: false, onnotice: () => {} });
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
    try {
      const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
      // Rows of 20 kB leave the server one by one (larger than its send buffer); the third
      // sleeps, so two rows have arrived when the backend is terminated.
      const streaming = sql`
        SELECT g, repeat('x', 20000) AS pad, pg_sleep(CASE WHEN g = 3 THEN 30 ELSE 0 END)
        FROM generate_series(1, 5) g`.then(() => null, (error: Error) => error);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await admin`SELECT pg_terminate_backend(${pid})`;
      const cut = await streaming;
      assert.ok(cut instanceof Error, "the interrupted query fails");
      // The server's goodbye has closed the socket by now; the next query reconnects.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const rows = await sql`SELECT 1 AS one`;
      assertEquals([...rows], [{ one: 1 }]);
    } finally {
      await Promise.allSettled([sql.end({ timeout: 1 }), admin.end({ timeout: 1 })]);
      await cluster.dispose();
    }
  },
});
