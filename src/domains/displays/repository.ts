/** SQL of displays (migrations/0901_displays.sql): their keys, claim codes and setup counts. */
import { type Insertable, sql, type Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import type { DisplayLogsTable, DisplaysTable } from "./tables.ts";
import type { Anchor } from "../../infra/lib/cursor.ts";
import { createdAtText, olderThan } from "../../infra/db/keyset.ts";
import { hitRateWindow } from "../../infra/db/rate_windows.ts";

/** The display a key belongs to (pending or claimed; a replaced key finds nothing usable). */
export function findByKeyHash(db: Db, keyHash: string) {
  return db.selectFrom("displays").selectAll().where("key_hash", "=", keyHash).executeTakeFirst();
}

/** One display row by id, locked. */
export function lockById(trx: Trx, id: string) {
  return trx.selectFrom("displays").selectAll().where("id", "=", id).forUpdate()
    .executeTakeFirst();
}

/** The pending display of a MAC, locked. */
export function lockPendingByMac(trx: Trx, mac: string) {
  return trx.selectFrom("displays").selectAll().where("mac", "=", mac)
    .where("status", "=", "pending").forUpdate().executeTakeFirst();
}

/** The pending display of a claim code, locked. */
export function lockPendingByCode(trx: Trx, code: string) {
  return trx.selectFrom("displays").selectAll().where("friendly_id", "=", code)
    .where("status", "=", "pending").forUpdate().executeTakeFirst();
}

/** The pending and claimed displays of a MAC (its status and device). */
export function liveByMac(trx: Trx, mac: string) {
  return trx.selectFrom("displays").select(["id", "status", "device_id"]).where("mac", "=", mac)
    .where("status", "in", ["pending", "claimed"]).execute();
}

/** A user's unused, unexpired enrollment tokens: how many, and when the first of them expires. */
export async function unusedEnrollments(db: Db, userId: string) {
  const row = await db.selectFrom("displays")
    .select((eb) => [eb.fn.countAll<string>().as("n"), eb.fn.min("code_expires_at").as("first")])
    .where("enrolled_by", "=", userId).where("status", "=", "enrollment")
    .where("code_expires_at", ">", new Date()).executeTakeFirstOrThrow();
  return { count: Number(row.n), firstExpiry: row.first as Date | null };
}

/**
 * Serializes the transactions that add displays to one user (claims, enrollment tokens and
 * their first polls), so the per-user limits hold under concurrent requests.
 */
export async function lockUserDisplays(trx: Trx, userId: string) {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${"displays-of:" + userId}))`.execute(trx);
}

/** Whether a pending display holds this code (expired or not: codes stay unique among them). */
export async function codeTaken(db: Db, code: string) {
  const row = await db.selectFrom("displays").select("id").where("friendly_id", "=", code)
    .where("status", "=", "pending").executeTakeFirst();
  return row !== undefined;
}

export function insertDisplay(trx: Trx, row: Insertable<DisplaysTable>) {
  return trx.insertInto("displays").values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateDisplay(db: Db, id: string, changes: Updateable<DisplaysTable>) {
  return db.updateTable("displays").set(changes).where("id", "=", id).returningAll()
    .executeTakeFirst();
}

/** Clears an owner's reset request of a display; true when there was one (it is answered once). */
export async function takeReset(db: Db, id: string): Promise<boolean> {
  const row = await db.updateTable("displays").set({ reset_requested_at: null })
    .where("id", "=", id).where("reset_requested_at", "is not", null).returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

/** Every other claimed key of the MAC stops: a re-pair was claimed. */
export function replaceClaimed(trx: Trx, mac: string, keepId: string) {
  return trx.updateTable("displays").set({ status: "replaced" }).where("mac", "=", mac)
    .where("status", "=", "claimed").where("id", "!=", keepId).execute();
}

/**
 * The claimed display of a MAC (a key-less poll's): at most one, since a claim or an enrollment
 * replaces the MAC's other claimed rows.
 */
export function findClaimedByMac(db: Db, mac: string) {
  return db.selectFrom("displays").selectAll().where("mac", "=", mac)
    .where("status", "=", "claimed").executeTakeFirst();
}

/** The claimed display of a device (its profile and refresh rate). */
export function findClaimedByDevice(db: Db, deviceId: string) {
  return db.selectFrom("displays").selectAll().where("device_id", "=", deviceId)
    .where("status", "=", "claimed").executeTakeFirst();
}

/** The claimed displays of many devices at once. */
export function findClaimedByDevices(db: Db, deviceIds: string[]) {
  if (deviceIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("displays").selectAll().where("device_id", "in", deviceIds)
    .where("status", "=", "claimed").execute();
}

/**
 * Counts one setup of `key` in the current window when under `limit`; null when allowed, else
 * the seconds until the window reopens (like the factory's download limit).
 */
export function hitSetupWindow(
  db: Db,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<number | null> {
  return hitRateWindow(db, "display_rate_windows", key, limit, windowSeconds);
}

/**
 * Stores a display's log entries and keeps only its newest `keep` entries within `maxBytes`
 * (each row's `bytes`), the oldest dropped first.
 */
export async function insertLogs(
  db: Db,
  deviceId: string,
  rows: Insertable<DisplayLogsTable>[],
  limits: { keep: number; maxBytes: number },
) {
  if (rows.length === 0) return;
  await db.insertInto("display_logs").values(rows).execute();
  await sql`
    DELETE FROM display_logs WHERE device_id = ${deviceId} AND id IN (
      SELECT id FROM (
        SELECT id,
          row_number() OVER newest AS n,
          sum(bytes) OVER newest AS total
        FROM display_logs WHERE device_id = ${deviceId}
        WINDOW newest AS (ORDER BY created_at DESC, id DESC)
      ) ranked WHERE n > ${limits.keep} OR total > ${limits.maxBytes}
    )
  `.execute(db);
}

/** A page of a device's log entries, newest first (`limit + 1` rows). */
export function listLogs(db: Db, deviceId: string, after: Anchor | undefined, limit: number) {
  let query = db.selectFrom("display_logs").selectAll().select(createdAtText.as("created_at_text"))
    .where("device_id", "=", deviceId);
  if (after) {
    query = query.where(olderThan(after));
  }
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit + 1).execute();
}

/** A device's log entries go with it (unbind, a display claimed by someone else). */
export function deleteLogsOf(db: Db, deviceId: string) {
  return db.deleteFrom("display_logs").where("device_id", "=", deviceId).execute();
}
