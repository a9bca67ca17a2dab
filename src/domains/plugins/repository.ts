/** SQL of plugins. */
import { sql } from "kysely";
import type { Insertable, Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import type { PluginsTable } from "./tables.ts";

/**
 * A value as jsonb, sent as text and cast in PostgreSQL: postgres.js would store a JSON string
 * as a jsonb string (STACK.md), PGlite would not; the cast reads the same on both.
 */
export function jsonb(value: unknown) {
  return sql<never>`cast(${JSON.stringify(value)}::text as jsonb)`;
}

export function insertPlugin(db: Db, row: Insertable<PluginsTable>) {
  return db.insertInto("plugins").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function countPlugins(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom("plugins").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("user_id", "=", userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A user's plugins, newest first. */
export function listPlugins(db: Db, userId: string) {
  return db.selectFrom("plugins").selectAll().where("user_id", "=", userId)
    .orderBy("created_at", "desc").orderBy("id", "desc").execute();
}

/** One plugin of the user; undefined when unknown or another user's. */
export function findPlugin(db: Db, userId: string, id: string) {
  return db.selectFrom("plugins").selectAll().where("id", "=", id).where("user_id", "=", userId)
    .executeTakeFirst();
}

/** One plugin of the user, locked for a change. */
export function lockPlugin(trx: Trx, userId: string, id: string) {
  return trx.selectFrom("plugins").selectAll().where("id", "=", id).where("user_id", "=", userId)
    .forUpdate().executeTakeFirst();
}

export function updatePlugin(trx: Trx, id: string, set: Updateable<PluginsTable>) {
  return trx.updateTable("plugins").set(set).where("id", "=", id).returningAll()
    .executeTakeFirstOrThrow();
}

/** True when the user had a plugin of that id. */
export async function deletePlugin(db: Db, userId: string, id: string): Promise<boolean> {
  const row = await db.deleteFrom("plugins").where("id", "=", id).where("user_id", "=", userId)
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** The webhook plugin an inbox uuid names (what an unauthenticated post may read of it). */
export function findInbox(db: Db, uuid: string) {
  return db.selectFrom("plugins")
    .select(["id", "user_id", "merge_variables", "inbox_window_start", "inbox_window_count"])
    .where("webhook_uuid", "=", uuid).where("strategy", "=", "webhook").executeTakeFirst();
}

/** The same, locked: a post's merge and count are one step. */
export function lockInbox(trx: Trx, uuid: string) {
  return trx.selectFrom("plugins")
    .select(["id", "user_id", "merge_variables", "inbox_window_start", "inbox_window_count"])
    .where("webhook_uuid", "=", uuid).where("strategy", "=", "webhook").forUpdate()
    .executeTakeFirst();
}

/**
 * Claims a polling plugin's fetch: true for the one caller (of any process) that finds its data
 * older than `refresh_minutes`; the others draw with the data there is.
 */
export async function claimPoll(db: Db, id: string, now: Date): Promise<boolean> {
  const row = await db.updateTable("plugins").set({ data_polled_at: now })
    .where("id", "=", id)
    .where((eb) =>
      eb.or([
        eb("data_polled_at", "is", null),
        eb(
          "data_polled_at",
          "<=",
          sql<Date>`${now}::timestamptz - make_interval(mins => refresh_minutes)`,
        ),
      ])
    )
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** The polling plugins of `ids` whose last poll is older than their refresh interval. */
export function stalePolling(db: Db, ids: string[], now: Date) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("plugins").selectAll()
    .where("id", "in", ids)
    .where("strategy", "=", "polling")
    .where((eb) =>
      eb.or([
        eb("data_polled_at", "is", null),
        eb(
          "data_polled_at",
          "<=",
          sql<Date>`${now}::timestamptz - make_interval(mins => refresh_minutes)`,
        ),
      ])
    )
    .execute();
}
