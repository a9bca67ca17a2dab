/** SQL of raw items, their attachments, analyze runs and the pushes the agent made. */
import { type Insertable, sql, type Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import type { Anchor } from "../../infra/lib/cursor.ts";
import type {
  AnalyzeRunsTable,
  ContentPushesTable,
  RawItemAttachmentsTable,
  RawItemsTable,
  RawItemStatus,
} from "./tables.ts";
import { createdAtText, olderThan } from "../../infra/db/keyset.ts";
import * as files from "../files/repository.ts";

export function insertRawItem(db: Db, row: Insertable<RawItemsTable>) {
  return db.insertInto("raw_items").values(row).returningAll().executeTakeFirstOrThrow();
}

export function insertAttachment(db: Db, row: Insertable<RawItemAttachmentsTable>) {
  return db.insertInto("raw_item_attachments").values(row).execute();
}

/** One item by id. */
export function findRawItem(db: Db, id: string) {
  return db.selectFrom("raw_items").selectAll().where("id", "=", id).executeTakeFirst();
}

/** One item of a user; undefined for another user's (SPEC 5.8: 404). */
export function findOwnedRawItem(db: Db, userId: string, id: string) {
  return db.selectFrom("raw_items").selectAll().where("id", "=", id).where("user_id", "=", userId)
    .executeTakeFirst();
}

export function lockRawItem(trx: Trx, id: string) {
  return trx.selectFrom("raw_items").selectAll().where("id", "=", id).forUpdate()
    .executeTakeFirst();
}

export function updateRawItem(db: Db, id: string, changes: Updateable<RawItemsTable>) {
  return db.updateTable("raw_items").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).returningAll().executeTakeFirst();
}

/** Moves an item on only from `from` (a job never overwrites a newer state). */
export function transitionRawItem(
  db: Db,
  id: string,
  from: RawItemStatus,
  changes: Updateable<RawItemsTable>,
) {
  return db.updateTable("raw_items").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).where("status", "=", from).returningAll().executeTakeFirst();
}

/** The attachments of items with their file records (files' columns), in upload order. */
export function attachmentsOf(db: Db, itemIds: string[]) {
  if (itemIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("raw_item_attachments as a")
    .innerJoin(files.recordsToJoin().as("f"), "f.id", "a.file_id")
    .select([
      "a.raw_item_id",
      "a.position",
      "a.file_id",
      "a.filename",
      "a.description",
      "f.content_type",
      "f.size_bytes",
      "f.status",
      "f.object_key",
    ])
    .where("a.raw_item_id", "in", itemIds)
    .orderBy("a.raw_item_id").orderBy("a.position").execute();
}

/** Records what the summary stage saw in one picture. */
export function describeAttachment(db: Db, fileId: string, description: string) {
  return db.updateTable("raw_item_attachments").set({ description })
    .where("file_id", "=", fileId).execute();
}

export interface ItemPage {
  status?: RawItemStatus;
  after?: Anchor;
  limit: number;
}

/** One page of a user's items, newest first, keyset-anchored on (created_at, id). */
export function listRawItems(db: Db, userId: string, q: ItemPage) {
  let query = db.selectFrom("raw_items").selectAll().select(createdAtText.as("created_at_text"))
    .where("user_id", "=", userId);
  if (q.status) query = query.where("status", "=", q.status);
  if (q.after) {
    query = query.where(olderThan(q.after));
  }
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(q.limit + 1).execute();
}

/** Summarised items of a user, newest first (the agent's `list_notes`). */
export function listSummarized(db: Db, userId: string, limit: number) {
  return db.selectFrom("raw_items").selectAll().where("user_id", "=", userId)
    .where("status", "=", "summarized")
    .orderBy("summarized_at", "desc").orderBy("id", "desc").limit(limit).execute();
}

/** The agent pushes made from items: (item, push, device) rows. */
export function pushesOfItems(db: Db, itemIds: string[]) {
  if (itemIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("content_pushes").select(["raw_item_id", "push_id", "device_id"])
    .where("raw_item_id", "in", itemIds).orderBy("created_at").orderBy("push_id").execute();
}

/** The items shown by pushes (the agent's `get_push_history`). */
export function itemsOfPushes(db: Db, pushIds: string[]) {
  if (pushIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("content_pushes").select(["raw_item_id", "push_id"])
    .where("push_id", "in", pushIds).execute();
}

/** Pairs already pushed among `itemIds` × `deviceId`. */
export function alreadyPushed(db: Db, itemIds: string[], deviceId: string) {
  return db.selectFrom("content_pushes").select(["raw_item_id", "push_id"])
    .where("raw_item_id", "in", itemIds).where("device_id", "=", deviceId).execute();
}

export function insertContentPushes(trx: Trx, rows: Insertable<ContentPushesTable>[]) {
  return trx.insertInto("content_pushes").values(rows).execute();
}

/** Counts per UTC day (`YYYY-MM-DD`) of a timestamp column of the user's items, from `from`. */
export function countItemsByDay(
  db: Db,
  userId: string,
  column: "created_at" | "summarized_at" | "failed_at",
  from: Date,
) {
  const day = sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  let query = db.selectFrom("raw_items").select([day.as("day"), (eb) => eb.fn.countAll().as("n")])
    .where("user_id", "=", userId).where(column, ">=", from);
  // An item counts as summarised or failed on the day it reached that status, if it still is.
  if (column === "summarized_at") query = query.where("status", "=", "summarized");
  if (column === "failed_at") query = query.where("status", "=", "failed");
  return query.groupBy(day).execute();
}

/** Agent pushes per UTC day of the user, from `from`. */
export function countPushesByDay(db: Db, userId: string, from: Date) {
  const day = sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  return db.selectFrom("content_pushes")
    .select([day.as("day"), sql<number>`count(DISTINCT push_id)`.as("n")])
    .where("user_id", "=", userId).where("created_at", ">=", from).groupBy(day).execute();
}

// --- analyze runs ---

export function insertRun(db: Db, row: Insertable<AnalyzeRunsTable>) {
  return db.insertInto("analyze_runs").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findRun(db: Db, id: string) {
  return db.selectFrom("analyze_runs").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findOwnedRun(db: Db, userId: string, id: string) {
  return db.selectFrom("analyze_runs").selectAll().where("id", "=", id)
    .where("user_id", "=", userId).executeTakeFirst();
}

export function updateRun(db: Db, id: string, changes: Updateable<AnalyzeRunsTable>) {
  return db.updateTable("analyze_runs").set(changes).where("id", "=", id).returningAll()
    .executeTakeFirst();
}

/**
 * Appends one recorded tool call to a run (jsonb concatenation, no read-modify-write). The step
 * object is passed raw: postgres.js would store a JSON string as a string (STACK.md).
 */
export function appendStep(db: Db, id: string, step: Record<string, unknown>) {
  return db.updateTable("analyze_runs")
    .set({ steps: sql`steps || jsonb_build_array(${step}::jsonb)` })
    .where("id", "=", id).execute();
}

/** One page of a user's runs, newest first. */
export function listRuns(db: Db, userId: string, q: { after?: Anchor; limit: number }) {
  let query = db.selectFrom("analyze_runs").selectAll()
    .select(createdAtText.as("created_at_text")).where("user_id", "=", userId);
  if (q.after) {
    query = query.where(olderThan(q.after));
  }
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(q.limit + 1).execute();
}

/** The pushes each run made, in order. */
export function pushesOfRuns(db: Db, runIds: string[]) {
  if (runIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("content_pushes").select(["run_id", "push_id"])
    .where("run_id", "in", runIds).groupBy(["run_id", "push_id"])
    .orderBy(sql`min(created_at)`).execute();
}

/**
 * Users with material summarised since their last analyze run started (or ever, without one):
 * whom the schedule visits.
 */
export async function usersWithNewMaterial(db: Db): Promise<string[]> {
  const rows = await db.selectFrom("raw_items as r").select("r.user_id").distinct()
    .where("r.status", "=", "summarized")
    .where(({ eb, selectFrom }) =>
      eb(
        "r.summarized_at",
        ">",
        selectFrom("analyze_runs as a").select(
          sql<Date>`coalesce(max(a.created_at), '-infinity'::timestamptz)`.as("last"),
        ).whereRef("a.user_id", "=", "r.user_id"),
      )
    )
    .execute();
  return rows.map((r) => r.user_id);
}

/**
 * Account deletion (SPEC 4.1): the user's raw items and runs; returns the attachments' file ids
 * (their records go through the files module).
 */
export async function deleteAllOf(trx: Trx, userId: string): Promise<string[]> {
  const files = await trx.selectFrom("raw_item_attachments as a")
    .innerJoin("raw_items as r", "r.id", "a.raw_item_id")
    .select("a.file_id").where("r.user_id", "=", userId).execute();
  await trx.deleteFrom("content_pushes").where("user_id", "=", userId).execute();
  await trx.deleteFrom("raw_items").where("user_id", "=", userId).execute();
  await trx.deleteFrom("analyze_runs").where("user_id", "=", userId).execute();
  return files.map((f) => f.file_id);
}
