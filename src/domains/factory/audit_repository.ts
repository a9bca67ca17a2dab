/** SQL of the factory audit log (SPEC 4.8): inserts, and the list filtered to a scope. */
import { type Insertable, sql } from "kysely";
import type { Db } from "../../schema.ts";
import { batchScopeSql, type Scope, unrestricted, unrestrictedScope } from "./scope.ts";
import type { FactoryAuditLogsTable } from "./tables.ts";

/** Inserts audit rows, 1000 per statement (PostgreSQL allows 65535 bind parameters). */
export async function insertAudit(db: Db, rows: Insertable<FactoryAuditLogsTable>[]) {
  for (let i = 0; i < rows.length; i += 1000) {
    await db.insertInto("factory_audit_logs").values(rows.slice(i, i + 1000)).execute();
  }
}

/** The query of GET /audit-logs. */
export interface AuditFilters {
  batchId?: string;
  deviceId?: string;
  action?: string;
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

/**
 * The rows a principal may read (issue 16). Unrestricted: every row, also those without a batch
 * (401s, whoami-level refusals). Scoped: rows of a batch in scope; a row about a device only when
 * that device is in scope too (its own SKU); a batch-level row that names the SKUs it covers
 * (`detail.skus`: an import, a ZIP) only when all of them are in scope.
 */
function visibleTo(scope: Scope) {
  if (unrestrictedScope(scope)) return sql<boolean>`true`;
  const skuOk = (column: string) =>
    unrestricted(scope.skus)
      ? sql<boolean>`true`
      : scope.skus.length
      ? sql<boolean>`${sql.ref(column)} in (${sql.join(scope.skus)})`
      : sql<boolean>`false`;
  // Text parameters only: a parameter cast to jsonb is serialised differently by each driver.
  const outside = scope.skus.length
    ? sql<boolean>`s.sku not in (${sql.join(scope.skus)})`
    : sql<boolean>`true`;
  const skusCovered = unrestricted(scope.skus)
    ? sql<boolean>`true`
    : sql<boolean>`(a.detail -> 'skus' is null or not exists (
      select 1 from jsonb_array_elements_text(a.detail -> 'skus') as s(sku) where ${outside}))`;
  return sql<boolean>`(b.id is not null and ${batchScopeSql(scope)}
    and (a.device_id is null or (d.id is not null and ${skuOk("d.sku")}))
    and ${skusCovered})`;
}

/** Audit rows the principal may read, newest first, with the total. */
export async function listAudit(db: Db, scope: Scope, f: AuditFilters) {
  const base = db.selectFrom("factory_audit_logs as a")
    .leftJoin("factory_batches as b", "b.id", "a.batch_id")
    .leftJoin("devices as d", "d.id", "a.device_id")
    .where(visibleTo(scope))
    .$if(f.batchId !== undefined, (qb) => qb.where("a.batch_id", "=", f.batchId!))
    .$if(f.deviceId !== undefined, (qb) => qb.where("a.device_id", "=", f.deviceId!))
    .$if(f.action !== undefined, (qb) => qb.where("a.action", "=", f.action!))
    .$if(f.from !== undefined, (qb) => qb.where("a.created_at", ">=", f.from!))
    .$if(f.to !== undefined, (qb) => qb.where("a.created_at", "<=", f.to!));
  const [rows, total] = await Promise.all([
    base.selectAll("a").orderBy("a.created_at", "desc").orderBy("a.id", "desc").limit(f.limit)
      .offset(f.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
