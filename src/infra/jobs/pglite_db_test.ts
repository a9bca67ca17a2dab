import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { lockedPglite } from "./pglite_db.ts";

Deno.test("pglite adapter: a statement waits for an open Kysely transaction, not joins it", async () => {
  const pglite = await PGlite.create("memory://");
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  try {
    await sql`CREATE TABLE t (v int)`.execute(db);
    const adapter = lockedPglite(db, pglite);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let opened!: () => void;
    const isOpen = new Promise<void>((r) => (opened = r));
    const rolledBack = db.transaction().execute(async (trx) => {
      await sql`INSERT INTO t VALUES (1)`.execute(trx);
      opened();
      await held;
      throw new Error("roll back");
    }).catch(() => "rolled back");
    await isOpen;
    // Issued while the transaction is open; without the lock it would run inside it.
    const insert = adapter.executeSql("INSERT INTO t VALUES ($1)", [2]);
    release();
    assertEquals(await rolledBack, "rolled back");
    await insert;
    const { rows } = await adapter.executeSql("SELECT v FROM t ORDER BY v");
    assertEquals(rows, [{ v: 2 }]);
    // Parameterless multi-statement text (pg-boss's DDL and locked blocks) still runs.
    const multi = await adapter.executeSql(
      "INSERT INTO t VALUES (3); SELECT count(*)::int AS n FROM t",
    );
    assertEquals(multi.rows, [{ n: 2 }]);
  } finally {
    await db.destroy();
  }
});
