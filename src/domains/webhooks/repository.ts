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

/** The user's enabled webhooks subscribed to any of `types`, with their events. */
export function subscribed(db: Db, userId: string, types: readonly string[]) {
  return db.selectFrom("webhooks").select(["id", "events"]).where("user_id", "=", userId)
    .where("disabled_at", "is", null)
    .where(sql<boolean>`events && ${sql.val(types)}::text[]`).execute();
}

/** Enables a disabled webhook of the user and forgets its failures; the row, or undefined. */
export function enableWebhook(db: Db, userId: string, id: string) {
  return db.updateTable("webhooks")
    .set({
      disabled_at: null,
      disabled_reason: null,
      consecutive_failures: 0,
      next_attempt_at: null,
    })
    .where("id", "=", id).where("user_id", "=", userId)
    .returningAll().executeTakeFirst();
}

/** Why a delivery may not be sent now. */
export type Claim =
  | { kind: "claimed" }
  | { kind: "gone" }
  | { kind: "disabled" }
  /** Leased (the target's, or every slot of its user) until about `until`, or paused until it. */
  | { kind: "busy"; reason: "lease" | "paused"; until: Date };

/**
 * Takes the lease of a webhook (its target) until `leaseUntil`, unless it is disabled, leased
 * already, slowed past `now`, or its user holds `userSlots` leases. The user's rows are locked
 * together (at most 20), so two workers never both take the user's last slot.
 */
export async function claimTarget(
  db: Db,
  webhookId: string,
  now: Date,
  leaseUntil: Date,
  userSlots: number,
): Promise<Claim> {
  return await db.transaction().execute(async (trx): Promise<Claim> => {
    const owner = await trx.selectFrom("webhooks").select("user_id").where("id", "=", webhookId)
      .executeTakeFirst();
    if (!owner) return { kind: "gone" };
    const rows = await trx.selectFrom("webhooks")
      .select(["id", "busy_until", "next_attempt_at", "disabled_at"])
      .where("user_id", "=", owner.user_id).orderBy("id").forUpdate().execute();
    const target = rows.find((r) => r.id === webhookId);
    if (!target) return { kind: "gone" };
    if (target.disabled_at) return { kind: "disabled" };
    if (target.busy_until && target.busy_until > now) {
      return { kind: "busy", reason: "lease", until: target.busy_until };
    }
    if (target.next_attempt_at && target.next_attempt_at > now) {
      return { kind: "busy", reason: "paused", until: target.next_attempt_at };
    }
    const leased = rows.filter((r) => r.busy_until && r.busy_until > now)
      .map((r) => r.busy_until!.getTime()).sort((a, b) => a - b);
    if (leased.length >= userSlots) {
      return { kind: "busy", reason: "lease", until: new Date(leased[0]) };
    }
    await trx.updateTable("webhooks").set({ busy_until: leaseUntil }).where("id", "=", webhookId)
      .execute();
    return { kind: "claimed" };
  });
}

/** Releases a lease without an attempt. */
export function releaseLease(db: Db, webhookId: string) {
  return db.updateTable("webhooks").set({ busy_until: null }).where("id", "=", webhookId)
    .execute();
}

/**
 * Releases a webhook's lease after an attempt: an acknowledged one clears its failures; a failed
 * one counts, and the new count comes back (for the caller to slow or disable the target).
 */
export async function releaseTarget(
  trx: Trx,
  webhookId: string,
  acknowledged: boolean,
): Promise<number> {
  const row = await trx.updateTable("webhooks")
    .set(
      acknowledged
        ? { busy_until: null, consecutive_failures: 0, next_attempt_at: null }
        : { busy_until: null, consecutive_failures: sql`consecutive_failures + 1` },
    )
    .where("id", "=", webhookId).returning("consecutive_failures").executeTakeFirst();
  return row?.consecutive_failures ?? 0;
}

/** Slows a failing target: nothing is sent to it before `until`. */
export function slowTarget(trx: Trx, webhookId: string, until: Date) {
  return trx.updateTable("webhooks").set({ next_attempt_at: until }).where("id", "=", webhookId)
    .execute();
}

/** Disables a webhook with why; its pending deliveries fail now (they are not attempted). */
export async function disableTarget(trx: Trx, webhookId: string, at: Date, reason: string) {
  await trx.updateTable("webhooks")
    .set({ disabled_at: at, disabled_reason: reason, next_attempt_at: null })
    .where("id", "=", webhookId).where("disabled_at", "is", null).execute();
  await trx.updateTable("webhook_deliveries").set({ status: "failed" })
    .where("webhook_id", "=", webhookId).where("status", "=", "pending").execute();
}

/** Fails one pending delivery without an attempt (its webhook is disabled). */
export function failDelivery(db: Db, id: string) {
  return db.updateTable("webhook_deliveries").set({ status: "failed" })
    .where("id", "=", id).where("status", "=", "pending").execute();
}

/**
 * The oldest pending delivery of a webhook never attempted (a retry keeps its own backoff), other
 * than `except`: the next of a target's backlog for its lease holder.
 */
export function nextUnattempted(db: Db, webhookId: string, except: string[]) {
  let query = db.selectFrom("webhook_deliveries").select("id")
    .where("webhook_id", "=", webhookId).where("status", "=", "pending")
    .where(sql<boolean>`jsonb_array_length(attempts) = 0`);
  if (except.length > 0) query = query.where("id", "not in", except);
  return query.orderBy("created_at").orderBy("id").limit(1).executeTakeFirst();
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
      "d.webhook_id",
      "w.url",
      "w.secret",
      "e.id as event_id",
      "e.type",
      "e.data",
      "e.created_at as event_created_at",
    ])
    .select(sql<number>`jsonb_array_length(d.attempts)`.as("attempt_count"))
    .where("d.id", "=", id).executeTakeFirst();
}

/** Appends an attempt and sets the status, only while the delivery is pending. */
export function recordAttempt(
  db: Db | Trx,
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
