/**
 * SQL of factory devices: the joined view rows (device, batch, current credential), the scoped
 * list, and the locks of credential changes. Functions that lock take a transaction.
 */
import type { Db, Trx } from "../../schema.ts";
import { deviceScopeSql, type Scope } from "./scope.ts";
import type { DeviceJoinRow } from "./views.ts";

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
      "b.sku as batch_sku",
      "d.sku",
      "d.hw_revision",
      "d.lifecycle_status",
      "d.nfc_status",
      "d.credential_version",
      "d.nfc_key_id",
      "d.owner_id",
      "d.online",
      "d.firmware",
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

/** The query of GET /devices. */
export interface DeviceFilters {
  batchId?: string;
  lifecycleStatus?: string;
  nfcStatus?: string;
  bound?: boolean;
  q?: string;
  limit: number;
  offset: number;
}

/** The devices in scope, filtered, newest first, with the total. */
export async function listDeviceViews(db: Db, scope: Scope, f: DeviceFilters) {
  const base = deviceSelect(db)
    .where(deviceScopeSql(scope))
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

/** Locks a device row for a credential change. */
export function lockDevice(trx: Trx, id: string) {
  return trx.selectFrom("devices")
    .select(["id", "hw_id", "thing_name", "credential_version", "batch_id", "serial"])
    .where("id", "=", id).forUpdate().executeTakeFirst();
}

/** Locks several device rows, in id order (every multi-device lock takes the same order). */
export function lockDevices(trx: Trx, ids: string[]) {
  return trx.selectFrom("devices").select("id").where("id", "in", ids).orderBy("id").forUpdate()
    .execute();
}

/** Records a device's new credential state (and marks it provisioned). */
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

/**
 * Devices of a batch waiting for their first credential, limited to the scope: batch generation
 * acts on each device the principal may reach, never on the whole batch (issue 16).
 */
export function pendingDeviceIds(db: Db, scope: Scope, batchId: string) {
  return db.selectFrom("devices as d")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .select("d.id")
    .where("d.batch_id", "=", batchId)
    .where("d.nfc_status", "=", "pending")
    .where(deviceScopeSql(scope))
    .orderBy("d.created_at").orderBy("d.id").execute();
}
