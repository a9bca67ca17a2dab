/**
 * pg-boss on the embedded PGlite, sharing Kysely's single connection.
 *
 * PGlite has one session. pg-boss's own `fromPglite` adapter talks to it directly, so a pg-boss
 * statement issued while a Kysely transaction is open runs *inside* that transaction: a job sent
 * (or a fetch's claim) there vanishes when the request's transaction rolls back (STACK.md). Every
 * pg-boss statement therefore takes Kysely's connection lock first (`db.connection()`), which
 * the PGlite driver serialises with transactions.
 */
import { fromPglite } from "pg-boss";
import type { PGlite } from "@electric-sql/pglite";
import type { Kysely } from "kysely";

type BossDb = ReturnType<typeof fromPglite>;

/** A pg-boss database adapter that runs each statement under Kysely's connection lock. */
export function lockedPglite<D>(db: Kysely<D>, pglite: PGlite): BossDb {
  const direct = fromPglite(pglite);
  const locked = <T>(run: () => Promise<T>) => db.connection().execute(run);
  const adapter: BossDb = {
    executeSql: (text, values) => locked(() => direct.executeSql(text, values)),
  };
  if (direct.setSessionStatements) {
    const set = direct.setSessionStatements.bind(direct);
    adapter.setSessionStatements = (statements) => locked(() => set(statements));
  }
  if (direct.listen) {
    const listen = direct.listen.bind(direct);
    // LISTEN is session state: issued inside a request's transaction it would die on rollback.
    adapter.listen = (channel, onNotification, onReconnect) =>
      locked(() => listen(channel, onNotification, onReconnect));
  }
  return adapter;
}
