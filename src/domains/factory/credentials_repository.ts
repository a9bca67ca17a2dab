/** SQL of NFC credentials (SPEC 2.14, 3.4b). Functions that lock take a transaction. */
import type { Insertable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import { deviceScopeSql, type Scope } from "./scope.ts";
import type { NfcCredentialsTable } from "./tables.ts";

/** Inserts one credential row. */
export function insertCredential(trx: Trx, row: Insertable<NfcCredentialsTable>) {
  return trx.insertInto("nfc_credentials").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Inserts several credentials in one statement (callers keep it under 1000 rows). */
export function insertCredentials(trx: Trx, rows: Insertable<NfcCredentialsTable>[]) {
  return trx.insertInto("nfc_credentials").values(rows).execute();
}

/** A credential with what a file and a scope check need. */
function credentialSelect(db: Db) {
  return db.selectFrom("nfc_credentials as c")
    .innerJoin("devices as d", "d.id", "c.device_id")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .select([
      "c.id",
      "c.device_id",
      "c.key_id",
      "c.credential_version",
      "c.status",
      "c.payload_sha256",
      "c.issued_at",
      "c.download_count",
      "d.serial",
      "d.hw_id",
      "d.thing_name",
      "d.sku",
      "d.hw_revision",
      "d.batch_id",
      "b.order_no",
      "b.sku as batch_sku",
    ]);
}

/** A credential joined with its device and batch. */
export type CredentialRow = NonNullable<Awaited<ReturnType<typeof findCredential>>>;

/** One credential with its device and batch, or undefined. */
export function findCredential(db: Db, id: string) {
  return credentialSelect(db).where("c.id", "=", id).executeTakeFirst();
}

/**
 * Locks the credential row (downloads count and state change under it). Lock its device first:
 * revoke-and-reissue takes the device, then the credential.
 */
export function lockCredential(trx: Trx, id: string) {
  return credentialSelect(trx).where("c.id", "=", id).forUpdate("c").executeTakeFirst();
}

function liveBatchCredentials(db: Db, scope: Scope, batchId: string) {
  // Each credential of the batch whose device is in scope (issue 16): never the whole batch.
  return credentialSelect(db).where("d.batch_id", "=", batchId)
    .where("c.status", "in", ["generated", "downloaded"])
    .where(deviceScopeSql(scope));
}

/** How many valid credentials of a batch the principal may export. */
export async function countBatchCredentials(db: Db, scope: Scope, batchId: string) {
  const row = await liveBatchCredentials(db, scope, batchId).clearSelect()
    .select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The devices of one page of a batch's valid credentials in scope (ZIP order: serial, id). */
export async function batchCredentialDevices(
  db: Db,
  scope: Scope,
  batchId: string,
  page: { offset: number; limit: number },
) {
  const rows = await liveBatchCredentials(db, scope, batchId).clearSelect().select("d.id")
    .orderBy("d.serial").orderBy("c.id").offset(page.offset).limit(page.limit).execute();
  return rows.map((r) => r.id);
}

/**
 * The valid credentials of these devices, locked. Callers lock the devices first: that is the
 * order revoke-and-reissue takes (device, then credential), so the two cannot deadlock.
 */
export function lockLiveCredentialsOf(trx: Trx, deviceIds: string[]) {
  return credentialSelect(trx).where("d.id", "in", deviceIds)
    .where("c.status", "in", ["generated", "downloaded"])
    .orderBy("d.serial").orderBy("c.id").forUpdate("c").execute();
}

/** `markDownloaded` for many credentials, 1000 per statement. */
export async function markManyDownloaded(trx: Trx, rows: Array<{ id: string; device_id: string }>) {
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    await trx.updateTable("nfc_credentials")
      .set((eb) => ({ download_count: eb("download_count", "+", 1), status: "downloaded" }))
      .where("id", "in", chunk.map((r) => r.id)).execute();
    await trx.updateTable("devices").set({ nfc_status: "downloaded", updated_at: new Date() })
      .where("id", "in", chunk.map((r) => r.device_id)).execute();
  }
}

/** Counts one download of a credential and marks its device downloaded. */
export function markDownloaded(trx: Trx, credentialId: string, deviceId: string) {
  return Promise.all([
    trx.updateTable("nfc_credentials")
      .set((eb) => ({ download_count: eb("download_count", "+", 1), status: "downloaded" }))
      .where("id", "=", credentialId).execute(),
    trx.updateTable("devices").set({ nfc_status: "downloaded", updated_at: new Date() })
      .where("id", "=", deviceId).execute(),
  ]);
}

/** The status and key of a device's credential of one version, or undefined (NFC binding). */
export function credentialState(trx: Trx, deviceId: string, version: number) {
  return trx.selectFrom("nfc_credentials").select(["status", "key_id"])
    .where("device_id", "=", deviceId).where("credential_version", "=", version)
    .executeTakeFirst();
}

/** The device's current valid credential, locked. */
export function lockCurrentCredential(trx: Trx, deviceId: string, version: number) {
  return trx.selectFrom("nfc_credentials").selectAll().where("device_id", "=", deviceId)
    .where("credential_version", "=", version).where("status", "!=", "revoked")
    .forUpdate().executeTakeFirst();
}

/** Marks a credential revoked (its file is gone, its proof refused). */
export function revokeCredential(trx: Trx, id: string) {
  return trx.updateTable("nfc_credentials").set({ status: "revoked", revoked_at: new Date() })
    .where("id", "=", id).execute();
}
