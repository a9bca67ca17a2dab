/** SQL of the firmware registry (issue 24): builds, rollouts, and the build a device should run. */
import { type Insertable, type Selectable, sql } from "kysely";
import type { Db } from "../../schema.ts";
import { batchScopeSql, type Scope, unrestricted, unrestrictedScope } from "./scope.ts";
import type { FirmwareBuildsTable, FirmwareRolloutsTable } from "./tables.ts";

export type BuildRow = Selectable<FirmwareBuildsTable>;
export type RolloutRow = Selectable<FirmwareRolloutsTable>;
/** A rollout with its build's version and, for a batch target, the batch's scope fields. */
export interface RolloutJoinRow extends RolloutRow {
  version: string;
  order_no: string | null;
  batch_sku: string | null;
}

/** Builds a scoped principal may read: those fitting a SKU of theirs (all when unrestricted). */
function buildVisible(scope: Scope) {
  if (unrestricted(scope.skus)) return sql<boolean>`true`;
  if (!scope.skus.length) return sql<boolean>`false`;
  return sql<boolean>`f.skus && array[${sql.join(scope.skus)}]::text[]`;
}

export async function insertBuild(db: Db, row: Insertable<FirmwareBuildsTable>) {
  return await db.insertInto("firmware_builds").values(row).returningAll()
    .executeTakeFirstOrThrow();
}

export async function findBuild(db: Db, id: string) {
  return await db.selectFrom("firmware_builds").selectAll().where("id", "=", id)
    .executeTakeFirst();
}

export async function findBuildByVersion(db: Db, version: string) {
  return await db.selectFrom("firmware_builds").select("id").where("version", "=", version)
    .executeTakeFirst();
}

/** Builds the principal may read, newest first, with the total. */
export async function listBuilds(db: Db, scope: Scope, page: { limit: number; offset: number }) {
  const base = db.selectFrom("firmware_builds as f").where(buildVisible(scope));
  const [rows, total] = await Promise.all([
    base.selectAll("f").orderBy("f.created_at", "desc").orderBy("f.id", "desc")
      .limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

function rolloutSelect(db: Db) {
  return db.selectFrom("firmware_rollouts as r")
    .innerJoin("firmware_builds as f", "f.id", "r.build_id")
    .leftJoin(
      "factory_batches as b",
      (join) => join.on("r.target_kind", "=", "batch").on(sql<boolean>`b.id::text = r.target`),
    )
    .selectAll("r")
    .select(["f.version", "b.order_no", "b.sku as batch_sku"]);
}

/**
 * The rollouts a principal may read: a batch's when the batch is in scope; a SKU's when every
 * batch is and the SKU too (it reaches every batch of the SKU); a model's only when unrestricted.
 */
function rolloutVisible(scope: Scope) {
  const sku = !unrestricted(scope.batches)
    ? sql<boolean>`false`
    : unrestricted(scope.skus)
    ? sql<boolean>`true`
    : scope.skus.length
    ? sql<boolean>`r.target in (${sql.join(scope.skus)})`
    : sql<boolean>`false`;
  const model = unrestrictedScope(scope) ? sql<boolean>`true` : sql<boolean>`false`;
  return sql<boolean>`((r.target_kind = 'batch' and b.id is not null and ${batchScopeSql(scope)})
    or (r.target_kind = 'sku' and ${sku}) or (r.target_kind = 'model' and ${model}))`;
}

export async function findRollout(db: Db, id: string): Promise<RolloutJoinRow | undefined> {
  return await rolloutSelect(db).where("r.id", "=", id).executeTakeFirst();
}

/** Rollouts the principal may read, newest first, with the total. */
export async function listRollouts(
  db: Db,
  scope: Scope,
  f: { buildId?: string; status?: string; limit: number; offset: number },
) {
  const base = rolloutSelect(db).where(rolloutVisible(scope))
    .$if(f.buildId !== undefined, (qb) => qb.where("r.build_id", "=", f.buildId!))
    .$if(f.status !== undefined, (qb) => qb.where("r.status", "=", f.status!));
  const [rows, total] = await Promise.all([
    base.orderBy("r.created_at", "desc").orderBy("r.id", "desc").limit(f.limit)
      .offset(f.offset).execute(),
    base.clearSelect().select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function insertRollout(db: Db, row: Insertable<FirmwareRolloutsTable>) {
  await db.insertInto("firmware_rollouts").values(row).execute();
}

export async function setRolloutStatus(db: Db, id: string, status: string) {
  await db.updateTable("firmware_rollouts").set({ status, updated_at: new Date() })
    .where("id", "=", id).execute();
}

/** What a device reports of itself, as a rollout matches it. */
export interface DeviceFit {
  batchId: string | null;
  sku: string | null;
  model: string | null;
}

/** A device's batch and SKU (the factory's columns of `devices`); nulls when it is unknown. */
export async function provisioningOf(
  db: Db,
  deviceId: string,
): Promise<{ batchId: string | null; sku: string | null }> {
  const row = await db.selectFrom("devices").select(["batch_id", "sku"])
    .where("id", "=", deviceId).executeTakeFirst();
  return { batchId: row?.batch_id ?? null, sku: row?.sku ?? null };
}

/**
 * The build of the newest active rollout that targets the device (its batch, SKU or model) and
 * fits it (its model or SKU listed by the build), or undefined.
 */
export async function rolloutBuildFor(db: Db, d: DeviceFit) {
  const targets = [];
  if (d.batchId) targets.push(sql<boolean>`(r.target_kind = 'batch' and r.target = ${d.batchId})`);
  if (d.sku) targets.push(sql<boolean>`(r.target_kind = 'sku' and r.target = ${d.sku})`);
  if (d.model) targets.push(sql<boolean>`(r.target_kind = 'model' and r.target = ${d.model})`);
  if (!targets.length) return undefined;
  const fits = [];
  if (d.sku) fits.push(sql<boolean>`${d.sku} = any(f.skus)`);
  if (d.model) fits.push(sql<boolean>`${d.model} = any(f.models)`);
  return await db.selectFrom("firmware_rollouts as r")
    .innerJoin("firmware_builds as f", "f.id", "r.build_id")
    .where("r.status", "=", "active")
    .where(sql<boolean>`(${sql.join(targets, sql` or `)})`)
    .where(sql<boolean>`(${sql.join(fits, sql` or `)})`)
    .select(["f.id", "f.version", "f.object_key", "f.sha256", "f.size_bytes", "r.id as rollout_id"])
    .orderBy("r.created_at", "desc").orderBy("r.id", "desc")
    .limit(1).executeTakeFirst();
}

/** Whether any rollout is active (most polls, with none, stop here). */
export async function anyActiveRollout(db: Db): Promise<boolean> {
  const row = await db.selectFrom("firmware_rollouts").select("id").where("status", "=", "active")
    .limit(1).executeTakeFirst();
  return row !== undefined;
}
