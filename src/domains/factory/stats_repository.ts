/** SQL of the factory statistics (SPEC 2.14): counts over what the principal may see. */
import { sql } from "kysely";
import type { Db } from "../../schema.ts";
import { batchScopeSql, deviceScopeSql, type Scope } from "./scope.ts";

/**
 * SPEC 2.14 counts over the devices in scope (a device of another SKU in a batch in scope is not
 * counted, issue 16) and the planned quantity of the batches in scope; optionally one batch.
 */
export async function counts(db: Db, scope: Scope, batchId?: string) {
  const devices = await db.selectFrom("devices as d")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .where(deviceScopeSql(scope))
    .$if(batchId !== undefined, (qb) => qb.where("d.batch_id", "=", batchId!))
    .select([
      sql<string>`count(*)`.as("registered"),
      sql<string>`count(*) filter (where d.credential_version > 0)`.as("generated"),
      sql<string>`count(*) filter (where d.nfc_status = 'downloaded')`.as("downloaded"),
      sql<string>`count(*) filter (where d.owner_id is not null)`.as("bound"),
    ]).executeTakeFirstOrThrow();
  const planned = await db.selectFrom("factory_batches as b")
    .where(batchScopeSql(scope))
    .$if(batchId !== undefined, (qb) => qb.where("b.id", "=", batchId!))
    .select([
      sql<string>`coalesce(sum(b.planned_quantity), 0)`.as("planned"),
      sql<string>`count(*)`.as("batches"),
    ])
    .executeTakeFirstOrThrow();
  return {
    batches: Number(planned.batches),
    counts: {
      registered: Number(devices.registered),
      credentialGenerated: Number(devices.generated),
      downloaded: Number(devices.downloaded),
      bound: Number(devices.bound),
      plannedQuantity: Number(planned.planned),
    },
  };
}

/**
 * The firmware versions the devices a rollout targets report, with their counts (issue 24): a
 * batch's devices in scope, a SKU's devices, or the devices reporting a model (a display's
 * `Model` header is kept in `state.model`), optionally those of one batch. Devices that never
 * reported are `version` null.
 */
export async function firmwareVersions(
  db: Db,
  scope: Scope,
  target: { kind: string; value: string },
  batchId?: string,
) {
  const rows = await db.selectFrom("devices as d")
    .leftJoin("factory_batches as b", "b.id", "d.batch_id")
    .$if(
      batchId !== undefined,
      (qb) => qb.where("d.batch_id", "=", batchId!).where(deviceScopeSql(scope)),
    )
    .$if(
      target.kind === "batch",
      (qb) => qb.where("d.batch_id", "=", target.value).where(deviceScopeSql(scope)),
    )
    .$if(target.kind === "sku", (qb) => qb.where("d.sku", "=", target.value))
    .$if(
      target.kind === "model",
      (qb) => qb.where(sql<string>`d.state ->> 'model'`, "=", target.value),
    )
    .select([sql<string | null>`d.firmware`.as("version"), sql<string>`count(*)`.as("n")])
    .groupBy("d.firmware")
    .orderBy(sql`count(*)`, "desc")
    .limit(200)
    .execute();
  return rows.map((r) => ({ version: r.version, devices: Number(r.n) }));
}
