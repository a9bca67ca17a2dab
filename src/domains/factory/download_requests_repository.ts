/** SQL of repeat-download requests (SPEC 3.5b). Functions that lock take a transaction. */
import type { Insertable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import { deviceScopeSql, type Scope } from "./scope.ts";
import type { NfcDownloadRequestsTable } from "./tables.ts";

/** Inserts a pending request; a second pending one is a unique violation. */
export function insertDownloadRequest(trx: Trx, row: Insertable<NfcDownloadRequestsTable>) {
  return trx.insertInto("nfc_download_requests").values(row).returningAll()
    .executeTakeFirstOrThrow();
}

function requestSelect(db: Db) {
  return db.selectFrom("nfc_download_requests as r")
    .innerJoin("nfc_credentials as c", "c.id", "r.credential_id")
    .innerJoin("devices as d", "d.id", "c.device_id")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .selectAll("r")
    .select(["d.id as device_id", "d.batch_id", "d.sku", "b.order_no", "b.sku as batch_sku"]);
}

/** A request joined with its device and batch. */
export type DownloadRequestRow = NonNullable<Awaited<ReturnType<typeof findDownloadRequest>>>;

/** A request with its device and batch, for scope checks and audit rows. */
export function findDownloadRequest(db: Db, id: string) {
  return requestSelect(db).where("r.id", "=", id).executeTakeFirst();
}

/** The same, locked: its status changes under the lock. */
export function lockDownloadRequest(trx: Trx, id: string) {
  return requestSelect(trx).where("r.id", "=", id).forUpdate("r").executeTakeFirst();
}

/** Approves or rejects a request. */
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

/** Consumes an approval (one download). */
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

/** Requests whose device is in scope (optionally one requester's), newest first, with the total. */
export async function listDownloadRequests(
  db: Db,
  scope: Scope,
  f: { status?: string; batchId?: string; requestedBy?: string; limit: number; offset: number },
) {
  const base = db.selectFrom("nfc_download_requests as r")
    .innerJoin("nfc_credentials as c", "c.id", "r.credential_id")
    .innerJoin("devices as d", "d.id", "c.device_id")
    .innerJoin("factory_batches as b", "b.id", "d.batch_id")
    .where(deviceScopeSql(scope))
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
