/** SQL of NFC credentials and download requests. Functions that lock take a transaction. */
import type { Insertable } from "kysely";
import type { Db, Trx } from "../schema.ts";
import type { NfcCredentialsTable, NfcDownloadRequestsTable } from "./tables.ts";
import { type BatchEb, type Scope, scoped } from "./repository.ts";

// ---- credentials ---------------------------------------------------------------------------

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
    ]);
}

export type CredentialRow = NonNullable<Awaited<ReturnType<typeof findCredential>>>;

export function findCredential(db: Db, id: string) {
  return credentialSelect(db).where("c.id", "=", id).executeTakeFirst();
}

/** Locks the credential row (downloads count and state change under it). */
export function lockCredential(trx: Trx, id: string) {
  return credentialSelect(trx).where("c.id", "=", id).forUpdate("c").executeTakeFirst();
}

/** Valid credentials of a batch, locked, for the ZIP download. */
export function lockBatchCredentials(trx: Trx, batchId: string) {
  return credentialSelect(trx).where("d.batch_id", "=", batchId)
    .where("c.status", "in", ["generated", "downloaded"])
    .orderBy("d.serial").forUpdate("c").execute();
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

export function markDownloaded(trx: Trx, credentialId: string, deviceId: string) {
  return Promise.all([
    trx.updateTable("nfc_credentials")
      .set((eb) => ({ download_count: eb("download_count", "+", 1), status: "downloaded" }))
      .where("id", "=", credentialId).execute(),
    trx.updateTable("devices").set({ nfc_status: "downloaded", updated_at: new Date() })
      .where("id", "=", deviceId).execute(),
  ]);
}

/** The device's current valid credential, locked. */
export function lockCurrentCredential(trx: Trx, deviceId: string, version: number) {
  return trx.selectFrom("nfc_credentials").selectAll().where("device_id", "=", deviceId)
    .where("credential_version", "=", version).where("status", "!=", "revoked")
    .forUpdate().executeTakeFirst();
}

export function revokeCredential(trx: Trx, id: string) {
  return trx.updateTable("nfc_credentials").set({ status: "revoked", revoked_at: new Date() })
    .where("id", "=", id).execute();
}

// ---- download requests ---------------------------------------------------------------------

export function insertDownloadRequest(trx: Trx, row: Insertable<NfcDownloadRequestsTable>) {
  return trx.insertInto("nfc_download_requests").values(row).returningAll()
    .executeTakeFirstOrThrow();
}

/** A request with its device and batch, for scope checks and audit rows. */
export function lockDownloadRequest(trx: Trx, id: string) {
  return trx.selectFrom("nfc_download_requests as r")
    .innerJoin("nfc_credentials as c", "c.id", "r.credential_id")
    .innerJoin("devices as d", "d.id", "c.device_id")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .selectAll("r")
    .select(["d.id as device_id", "d.batch_id", "d.sku", "b.order_no"])
    .where("r.id", "=", id).forUpdate("r").executeTakeFirst();
}

export function decideDownloadRequest(
  trx: Trx,
  id: string,
  v: {
    status: string;
    decided_by: string;
    decided_at: Date;
    reason?: string | null;
    expires_at?: Date | null;
  },
) {
  return trx.updateTable("nfc_download_requests")
    .set(v).where("id", "=", id).returningAll()
    .executeTakeFirstOrThrow();
}

/** An approved, unused, unexpired request of this principal for the credential, locked. */
export function lockUsableApproval(trx: Trx, credentialId: string, principalId: string, now: Date) {
  return trx.selectFrom("nfc_download_requests").selectAll()
    .where("credential_id", "=", credentialId).where("requested_by", "=", principalId)
    .where("status", "=", "approved").where("used_at", "is", null).where("expires_at", ">", now)
    .orderBy("decided_at").limit(1).forUpdate().executeTakeFirst();
}

export function markApprovalUsed(trx: Trx, id: string) {
  return trx.updateTable("nfc_download_requests").set({ used_at: new Date() }).where("id", "=", id)
    .execute();
}

/** Pending requests of a revoked credential can never be served: they are closed. */
export function rejectPendingFor(trx: Trx, credentialId: string, by: string) {
  return trx.updateTable("nfc_download_requests")
    .set({
      status: "rejected",
      reason: "credential revoked",
      decided_by: by,
      decided_at: new Date(),
    })
    .where("credential_id", "=", credentialId).where("status", "=", "pending").execute();
}

export async function listDownloadRequests(
  db: Db,
  scope: Scope,
  f: { status?: string; batchId?: string; requestedBy?: string; limit: number; offset: number },
) {
  const base = db.selectFrom("nfc_download_requests as r")
    .innerJoin("nfc_credentials as c", "c.id", "r.credential_id")
    .innerJoin("devices as d", "d.id", "c.device_id")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .where((eb) => scoped(eb as unknown as BatchEb, scope, "d.sku"))
    .$if(f.status !== undefined, (qb) => qb.where("r.status", "=", f.status!))
    .$if(f.batchId !== undefined, (qb) => qb.where("d.batch_id", "=", f.batchId!))
    .$if(f.requestedBy !== undefined, (qb) => qb.where("r.requested_by", "=", f.requestedBy!));
  const [rows, total] = await Promise.all([
    base.selectAll("r").orderBy("r.created_at", "desc").orderBy("r.id", "desc").limit(f.limit)
      .offset(f.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
