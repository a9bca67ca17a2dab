/** SQL of stored-object records. */
import { expressionBuilder, type Insertable } from "kysely";
import { isUuid } from "../../infra/lib/ids.ts";
import type { DB, Db, Trx } from "../../schema.ts";
import type { FilesTable } from "./tables.ts";

/** Records an object. */
export function insertFile(db: Db, row: Insertable<FilesTable>) {
  return db.insertInto("files").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Many file records in one statement (a drawing stored for many devices). */
export async function insertFiles(db: Db, rows: Insertable<FilesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto("files").values(rows).execute();
}

/**
 * What another domain shows of a record beside its own rows (a raw item's attachments), as a
 * table to join in its query: one round trip, and only this module names `files`.
 */
export function recordsToJoin() {
  return expressionBuilder<DB, never>().selectFrom("files")
    .select(["id", "content_type", "size_bytes", "status", "object_key"]);
}

/** One record by id. */
export function findFile(db: Db, id: string) {
  return db.selectFrom("files").selectAll().where("id", "=", id).executeTakeFirst();
}

/** A user's records among `ids` (missing and other users' ids are left out). */
export function findFilesOfUser(db: Db, userId: string, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("files").selectAll().where("user_id", "=", userId).where("id", "in", ids)
    .execute();
}

/** Locks one record for a state change (upload confirm). */
export function lockFile(trx: Trx, id: string) {
  return trx.selectFrom("files").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

/** Marks an upload confirmed: its verified copy's key, size and sniffed content type. */
export function confirmFile(
  trx: Trx,
  id: string,
  verified: { objectKey: string; sizeBytes: number; contentType: string },
) {
  return trx.updateTable("files")
    .set({
      status: "confirmed",
      confirmed_at: new Date(),
      object_key: verified.objectKey,
      size_bytes: verified.sizeBytes,
      content_type: verified.contentType,
    })
    .where("id", "=", id).execute();
}

/** Deletes the records a user holds for one device (unbind, account deletion). */
export function deleteFilesOfDevice(trx: Trx, deviceId: string, userId: string) {
  return trx.deleteFrom("files").where("device_id", "=", deviceId).where("user_id", "=", userId)
    .execute();
}

/** One record of a user; undefined for another user's (SPEC 5.8: 404). */
export function findUserFile(db: Db, userId: string, id: string) {
  return db.selectFrom("files").selectAll().where("id", "=", id).where("user_id", "=", userId)
    .executeTakeFirst();
}

/**
 * Confirmed records of a user among `ids` (template pictures, previews). An id that is not a
 * UUID names no file: it is left out rather than sent to the uuid column, where it fails the query.
 */
export function confirmedUserFiles(db: Db, userId: string, ids: string[]) {
  ids = ids.filter(isUuid);
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("files").selectAll().where("id", "in", ids).where("user_id", "=", userId)
    .where("status", "=", "confirmed").execute();
}

/** Deletes the user's records of these ids (a content's pictures it no longer needs). */
export function deleteFilesOfUser(db: Db, userId: string, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.deleteFrom("files").where("user_id", "=", userId).where("id", "in", ids).execute();
}

/** Deletes records by id (account deletion of raw-item pictures). */
export function deleteFilesById(trx: Trx, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return trx.deleteFrom("files").where("id", "in", ids).execute();
}
