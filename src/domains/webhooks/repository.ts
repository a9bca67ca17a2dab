/** SQL of event webhooks. */
import { sql } from "kysely";
import type { Insertable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import type { Anchor } from "../../infra/lib/cursor.ts";
import type { DeliveryAttempt, WebhooksTable } from "./tables.ts";

/**
 * A value as jsonb, sent as text and cast in PostgreSQL: postgres.js would store a JSON string
 * as a jsonb string (STACK.md), PGlite would not; the cast reads the same on both.
 */
function jsonb(value: unknown) {
  return sql<never>`cast(${JSON.stringify(value)}::text as jsonb)`;
}

export function insertWebhook(db: Db, row: Insertable<WebhooksTable>) {
  return db.insertInto("webhooks").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function countWebhooks(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom("webhooks").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("user_id", "=", userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A user's webhooks, newest first. */
export function listWebhooks(db: Db, userId: string) {
  return db.selectFrom("webhooks").selectAll().where("user_id", "=", userId)
    .orderBy("created_at", "desc").orderBy("id", "desc").execute();
}

export function findWebhook(db: Db, userId: string, id: string) {
  return db.selectFrom("webhooks").selectAll().where("id", "=", id).where("user_id", "=", userId)
    .executeTakeFirst();
}

/** True when the user had a webhook of that id. */
export async function deleteWebhook(db: Db, userId: string, id: string): Promise<boolean> {
  const row = await db.deleteFrom("webhooks").where("id", "=", id).where("user_id", "=", userId)
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** The user's webhooks subscribed to any of `types`, with their events. */
export function subscribed(db: Db, userId: string, types: readonly string[]) {
  return db.selectFrom("webhooks").select(["id", "events"]).where("user_id", "=", userId)
    .where(sql<boolean>`events && ${sql.val(types)}::text[]`).execute();
}

export function insertEvent(
  trx: Trx,
  row: { id: string; user_id: string; type: string; data: unknown; created_at: Date },
) {
  return trx.insertInto("webhook_events")
    .values({ ...row, data: jsonb(row.data) })
    .execute();
}

/**
 * Deletes up to `limit` events created before `before`, oldest first (their deliveries go with
 * them); how many it deleted.
 */
export async function pruneEvents(db: Db, before: Date, limit: number): Promise<number> {
  const result = await db.deleteFrom("webhook_events").where(
    "id",
    "in",
    db.selectFrom("webhook_events").select("id").where("created_at", "<", before)
      .orderBy("created_at").limit(limit),
  ).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One delivery per (webhook, event); the ids of those inserted now. */
export function insertDeliveries(
  trx: Trx,
  rows: { id: string; webhook_id: string; event_id: string }[],
) {
  return trx.insertInto("webhook_deliveries").values(rows)
    .onConflict((oc) => oc.columns(["webhook_id", "event_id"]).doNothing())
    .returning("id").execute();
}

/** A delivery with its webhook and event (what a delivery attempt sends). */
export function findDelivery(db: Db, id: string) {
  return db.selectFrom("webhook_deliveries as d")
    .innerJoin("webhooks as w", "w.id", "d.webhook_id")
    .innerJoin("webhook_events as e", "e.id", "d.event_id")
    .select([
      "d.id",
      "d.status",
      "w.url",
      "w.secret",
      "e.id as event_id",
      "e.type",
      "e.data",
      "e.created_at as event_created_at",
    ])
    .where("d.id", "=", id).executeTakeFirst();
}

/** Appends an attempt and sets the status, only while the delivery is pending. */
export function recordAttempt(
  db: Db,
  id: string,
  attempt: DeliveryAttempt,
  status: "pending" | "delivered" | "failed",
) {
  return db.updateTable("webhook_deliveries")
    .set({
      attempts: sql`attempts || ${jsonb([attempt])}`,
      status,
      ...(status === "delivered" ? { delivered_at: new Date() } : {}),
    })
    .where("id", "=", id).where("status", "=", "pending").execute();
}

/** A webhook's deliveries, newest first, with their events. */
export function listDeliveries(
  db: Db,
  webhookId: string,
  after: Anchor | undefined,
  limit: number,
) {
  let query = db.selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as e", "e.id", "d.event_id")
    .select([
      "d.id",
      "d.status",
      "d.attempts",
      "d.created_at",
      "d.delivered_at",
      "e.id as event_id",
      "e.type",
    ])
    .select(
      sql<string>`to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as(
        "created_at_text",
      ),
    )
    .where("d.webhook_id", "=", webhookId);
  if (after) {
    query = query.where(
      sql<
        boolean
      >`(d.created_at, d.id) < (${after.createdAt}::text::timestamptz, ${after.id}::uuid)`,
    );
  }
  return query.orderBy("d.created_at", "desc").orderBy("d.id", "desc").limit(limit + 1).execute();
}

export async function batteryThreshold(db: Db, userId: string): Promise<number | undefined> {
  const row = await db.selectFrom("webhook_settings").select("battery_low_threshold")
    .where("user_id", "=", userId).executeTakeFirst();
  return row?.battery_low_threshold;
}

export function setBatteryThreshold(db: Db, userId: string, threshold: number) {
  return db.insertInto("webhook_settings")
    .values({ user_id: userId, battery_low_threshold: threshold })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ battery_low_threshold: threshold }))
    .execute();
}

export function findDeviceState(trx: Trx, deviceId: string) {
  return trx.selectFrom("webhook_device_states").selectAll().where("device_id", "=", deviceId)
    .executeTakeFirst();
}

export function saveDeviceState(
  trx: Trx,
  row: { device_id: string; user_id: string; online: boolean; battery_low: boolean },
) {
  const now = new Date();
  return trx.insertInto("webhook_device_states").values({ ...row, updated_at: now })
    .onConflict((oc) =>
      oc.column("device_id").doUpdateSet({
        user_id: row.user_id,
        online: row.online,
        battery_low: row.battery_low,
        updated_at: now,
      })
    ).execute();
}

/** Devices last announced online (the sweep's candidates), oldest announcement first. */
export function announcedOnline(db: Db, limit: number) {
  return db.selectFrom("webhook_device_states").select(["device_id", "user_id"])
    .where("online", "=", true).orderBy("updated_at").limit(limit).execute();
}

/** Forgets what was announced of a device (it left the owner the announcement was for). */
export function deleteDeviceState(trx: Trx, deviceId: string) {
  return trx.deleteFrom("webhook_device_states").where("device_id", "=", deviceId).execute();
}
