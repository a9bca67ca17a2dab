/**
 * SQL of batches, devices, idempotency keys, the audit log and statistics. Credentials and
 * download requests are in `credentials_repository.ts`. Functions that lock take a transaction.
 */
import { type ExpressionBuilder, type Insertable, sql } from "kysely";
import type { DB, Db, Trx } from "../schema.ts";
import { isUuid } from "../lib/ids.ts";
import type { Principal } from "./principals.ts";
import { unrestricted } from "./principals.ts";
import type { FactoryAuditLogsTable, FactoryBatchesTable } from "./tables.ts";
import type { DeviceJoinRow } from "./views.ts";

export type Scope = Pick<Principal, "batches" | "skus">;
export type BatchEb = ExpressionBuilder<DB & { b: FactoryBatchesTable }, "b">;

/** The principal's scope as a SQL condition on batch alias `b` and a SKU column. */
export function scoped(eb: BatchEb, scope: Scope, skuColumn: "b.sku" | "d.sku") {
  const conditions = [];
  if (!unrestricted(scope.batches)) {
    const ids = scope.batches.filter(isUuid);
    conditions.push(
      eb.or([
        ...(ids.length ? [eb("b.id", "in", ids)] : []),
        ...(scope.batches.length ? [eb("b.order_no", "in", scope.batches)] : []),
        eb.val(false),
      ]),
    );
  }
  if (!unrestricted(scope.skus)) {
    // deno-lint-ignore no-explicit-any -- d.sku exists only in the device queries
    const column = skuColumn as any;
    conditions.push(scope.skus.length ? eb(column, "in", scope.skus) : eb.val(false));
  }
  return eb.and(conditions);
}

// ---- batches -------------------------------------------------------------------------------

export function insertBatch(db: Db, row: Insertable<FactoryBatchesTable>) {
  return db.insertInto("factory_batches").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findBatch(db: Db, id: string) {
  return db.selectFrom("factory_batches").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function listBatches(
  db: Db,
  scope: Scope,
  q: { status?: string; limit: number; offset: number },
) {
  const base = db.selectFrom("factory_batches as b")
    .where((eb) => scoped(eb as unknown as BatchEb, scope, "b.sku"))
    .$if(q.status !== undefined, (qb) => qb.where("b.status", "=", q.status!));
  const [rows, total] = await Promise.all([
    base.selectAll("b").orderBy("b.created_at", "desc").orderBy("b.id", "desc")
      .limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

// ---- devices -------------------------------------------------------------------------------

function deviceSelect(db: Db) {
  return db.selectFrom("devices as d")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .leftJoin(
      "nfc_credentials as c",
      (join) =>
        join.onRef("c.device_id", "=", "d.id").onRef(
          "c.credential_version",
          "=",
          "d.credential_version",
        ),
    )
    .select([
      "d.id",
      "d.serial",
      "d.hw_id",
      "d.thing_name",
      "d.batch_id",
      "b.order_no",
      "d.sku",
      "d.hw_revision",
      "d.lifecycle_status",
      "d.nfc_status",
      "d.credential_version",
      "d.nfc_key_id",
      "d.owner_id",
      "d.online",
      "d.created_at",
      "c.id as c_id",
      "c.key_id as c_key_id",
      "c.credential_version as c_credential_version",
      "c.status as c_status",
      "c.payload_sha256 as c_payload_sha256",
      "c.issued_by as c_issued_by",
      "c.issued_at as c_issued_at",
      "c.download_count as c_download_count",
    ]);
}

/** Several devices with their batch and current credential, in id order. */
export async function findDeviceViews(db: Db, ids: string[]): Promise<DeviceJoinRow[]> {
  const out: DeviceJoinRow[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    out.push(
      ...await deviceSelect(db).where("d.id", "in", ids.slice(i, i + 1000)).orderBy("d.id")
        .execute(),
    );
  }
  return out;
}

/** One device with its batch and current credential, or undefined. */
export function findDeviceView(db: Db, id: string): Promise<DeviceJoinRow | undefined> {
  return deviceSelect(db).where("d.id", "=", id).executeTakeFirst();
}

export interface DeviceFilters {
  batchId?: string;
  lifecycleStatus?: string;
  nfcStatus?: string;
  bound?: boolean;
  q?: string;
  limit: number;
  offset: number;
}

export async function listDeviceViews(db: Db, scope: Scope, f: DeviceFilters) {
  const base = deviceSelect(db)
    .where((eb) => scoped(eb as unknown as BatchEb, scope, "d.sku"))
    .$if(f.batchId !== undefined, (qb) => qb.where("d.batch_id", "=", f.batchId!))
    .$if(
      f.lifecycleStatus !== undefined,
      (qb) => qb.where("d.lifecycle_status", "=", f.lifecycleStatus!),
    )
    .$if(f.nfcStatus !== undefined, (qb) => qb.where("d.nfc_status", "=", f.nfcStatus!))
    .$if(f.bound !== undefined, (qb) => qb.where("d.owner_id", f.bound ? "is not" : "is", null))
    .$if(f.q !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb("d.serial", "ilike", `%${escapeLike(f.q!)}%`),
          eb("d.hw_id", "ilike", `%${escapeLike(f.q!)}%`),
        ])
      ));
  const [rows, total] = await Promise.all([
    base.orderBy("d.created_at", "desc").orderBy("d.id", "desc").limit(f.limit).offset(f.offset)
      .execute(),
    base.clearSelect().select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

export interface NewDevice {
  id: string;
  hw_id: string;
  thing_name: string;
  serial: string;
  batch_id: string;
  sku: string | null;
  hw_revision: string | null;
  claim_code: string;
}

/** Inserts devices; rows whose (batch, serial) exists are skipped and not returned. */
export function insertDevices(trx: Trx, rows: NewDevice[]) {
  return trx.insertInto("devices").values(rows)
    .onConflict((oc) => oc.columns(["batch_id", "serial"]).doNothing())
    .returning(["id", "serial"]).execute();
}

export function findDevicesBySerial(db: Db, batchId: string, serials: string[]) {
  if (!serials.length) return Promise.resolve([]);
  return db.selectFrom("devices").select(["id", "serial", "sku", "hw_revision"])
    .where("batch_id", "=", batchId).where("serial", "in", serials).execute();
}

/** Locks a device row for a credential change. */
export function lockDevice(trx: Trx, id: string) {
  return trx.selectFrom("devices").select([
    "id",
    "hw_id",
    "credential_version",
    "batch_id",
    "serial",
  ])
    .where("id", "=", id).forUpdate().executeTakeFirst();
}

export function setDeviceCredential(
  trx: Trx,
  id: string,
  v: { nfc_status: string; credential_version?: number; nfc_key_id?: string },
) {
  return trx.updateTable("devices")
    .set({ ...v, lifecycle_status: "provisioned", updated_at: new Date() })
    .where("id", "=", id).execute();
}

/** Same columns for several devices (batch generation: all version 1 with one key). */
export function setDevicesCredential(
  trx: Trx,
  ids: string[],
  v: { nfc_status: string; credential_version: number; nfc_key_id: string },
) {
  return trx.updateTable("devices")
    .set({ ...v, lifecycle_status: "provisioned", updated_at: new Date() })
    .where("id", "in", ids).execute();
}

/** Locks those of `ids` that still have no credential. */
export function lockPendingDevices(trx: Trx, ids: string[]) {
  return trx.selectFrom("devices").select(["id", "hw_id"]).where("id", "in", ids)
    .where("credential_version", "=", 0).orderBy("id").forUpdate().execute();
}

/** Devices of a batch waiting for their first credential. */
export function pendingDeviceIds(db: Db, batchId: string) {
  return db.selectFrom("devices").select("id").where("batch_id", "=", batchId)
    .where("nfc_status", "=", "pending").orderBy("created_at").orderBy("id").execute();
}

// ---- idempotency keys ---------------------------------------------------------------------

export function findIdempotencyKey(trx: Trx, principalId: string, key: string) {
  return trx.selectFrom("factory_idempotency_keys").selectAll()
    .where("principal_id", "=", principalId).where("key", "=", key).executeTakeFirst();
}

export function insertIdempotencyKey(
  trx: Trx,
  row: { principal_id: string; key: string; fingerprint: string; device_id: string },
) {
  return trx.insertInto("factory_idempotency_keys").values(row).execute();
}

// ---- audit ---------------------------------------------------------------------------------

/** Inserts audit rows, 1000 per statement (PostgreSQL allows 65535 bind parameters). */
export async function insertAudit(db: Db, rows: Insertable<FactoryAuditLogsTable>[]) {
  for (let i = 0; i < rows.length; i += 1000) {
    await db.insertInto("factory_audit_logs").values(rows.slice(i, i + 1000)).execute();
  }
}

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
 * Audit rows; a scoped principal sees only rows of batches in its scope, an unrestricted one
 * also the rows without a batch (authorization failures, whoami-level events).
 */
export async function listAudit(db: Db, scope: Scope, f: AuditFilters) {
  const open = unrestricted(scope.batches) && unrestricted(scope.skus);
  const base = db.selectFrom("factory_audit_logs as a")
    .leftJoin("factory_batches as b", "b.id", "a.batch_id")
    .$if(
      !open,
      (qb) =>
        qb.where((eb) =>
          eb.and([eb("b.id", "is not", null), scoped(eb as unknown as BatchEb, scope, "b.sku")])
        ),
    )
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

// ---- statistics ----------------------------------------------------------------------------

/** SPEC 2.14 counts over the devices of the batches in scope (optionally one batch). */
export async function counts(db: Db, scope: Scope, batchId?: string) {
  const devices = await db.selectFrom("devices as d")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .where((eb) => scoped(eb as unknown as BatchEb, scope, "d.sku"))
    .$if(batchId !== undefined, (qb) => qb.where("d.batch_id", "=", batchId!))
    .select([
      sql<string>`count(*)`.as("registered"),
      sql<string>`count(*) filter (where d.credential_version > 0)`.as("generated"),
      sql<string>`count(*) filter (where d.nfc_status = 'downloaded')`.as("downloaded"),
      sql<string>`count(*) filter (where d.owner_id is not null)`.as("bound"),
    ]).executeTakeFirstOrThrow();
  const planned = await db.selectFrom("factory_batches as b")
    .where((eb) => scoped(eb as unknown as BatchEb, scope, "b.sku"))
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
