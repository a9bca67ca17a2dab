/** SQL of factory batches (SPEC 2.14). */
import type { Insertable } from "kysely";
import type { Db } from "../../schema.ts";
import { batchScopeSql, type Scope } from "./scope.ts";
import type { FactoryBatchesTable } from "./tables.ts";

/** Inserts a batch; a taken order number is a unique violation. */
export function insertBatch(db: Db, row: Insertable<FactoryBatchesTable>) {
  return db.insertInto("factory_batches").values(row).returningAll().executeTakeFirstOrThrow();
}

/** One batch by id, or undefined. */
export function findBatch(db: Db, id: string) {
  return db.selectFrom("factory_batches").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The batches in scope, newest first, with the total. */
export async function listBatches(
  db: Db,
  scope: Scope,
  q: { status?: string; limit: number; offset: number },
) {
  const base = db.selectFrom("factory_batches as b")
    .where(batchScopeSql(scope))
    .$if(q.status !== undefined, (qb) => qb.where("b.status", "=", q.status!));
  const [rows, total] = await Promise.all([
    base.selectAll("b").orderBy("b.created_at", "desc").orderBy("b.id", "desc")
      .limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
