/**
 * SQL of targetless contents, presentations, renditions and idempotency keys. Functions take `db`
 * first; those that lock take a `Trx`. A display presentation's state is read from its push
 * (CONTRACT.md: the presentation mirrors its push), joined from the columns pushes' repository
 * gives (`stateToJoin`): a read only, never a write.
 */
import { type Insertable, type RawBuilder, sql, type Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import * as pushes from "../pushes/repository.ts";
import type {
  PresentationsTable,
  Problem,
  RenditionsTable,
  TargetlessContentsTable,
  TargetlessIdempotencyKeysTable,
} from "./tables.ts";

/**
 * A json parameter sent as text and cast by the server, so postgres.js and PGlite store the
 * same value (a raw array would be sent as a PostgreSQL array, a string double-encoded). The
 * columns are `json`, not `jsonb`: a Scene reads back with its keys in the order they were written.
 */
export function json<T>(value: T): RawBuilder<T> {
  return sql<T>`cast(${JSON.stringify(value)}::text as json)`;
}

// ---- contents

/** Inserts a content. */
export function insertContent(trx: Trx, row: Insertable<TargetlessContentsTable>) {
  return trx.insertInto("targetless_contents").values(row).returningAll()
    .executeTakeFirstOrThrow();
}

/** The caller's content, or undefined (another user's is undefined too: SPEC 5.8). */
export function findContent(db: Db, userId: string, id: string) {
  return db.selectFrom("targetless_contents").selectAll().where("id", "=", id)
    .where("user_id", "=", userId).executeTakeFirst();
}

/** A content by id alone (jobs). */
export function findContentById(db: Db, id: string) {
  return db.selectFrom("targetless_contents").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Locks a content for a state change (confirm, the end of generation). */
export function lockContent(trx: Trx, id: string) {
  return trx.selectFrom("targetless_contents").selectAll().where("id", "=", id).forUpdate()
    .executeTakeFirst();
}

/** Changes a content's state; returns the row as changed. */
export function setContentState(db: Db, id: string, state: TargetlessContentsTable["state"]) {
  return db.updateTable("targetless_contents").set({ state, updated_at: new Date() })
    .where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

/** Presentation ids of each content, oldest first. */
export async function presentationIdsOf(db: Db, contentIds: readonly string[]) {
  const out = new Map<string, string[]>(contentIds.map((id) => [id, []]));
  if (contentIds.length === 0) return out;
  const rows = await db.selectFrom("presentation_contents").select([
    "content_id",
    "presentation_id",
  ])
    .where("content_id", "in", contentIds).orderBy("presentation_id").execute();
  for (const row of rows) out.get(row.content_id)?.push(row.presentation_id);
  return out;
}

// ---- presentations

/** Inserts a presentation and links it to its content. */
export async function insertPresentation(
  trx: Trx,
  row: Insertable<PresentationsTable>,
  contentId: string,
) {
  const presentation = await trx.insertInto("presentations").values(row).returningAll()
    .executeTakeFirstOrThrow();
  await trx.insertInto("presentation_contents")
    .values({ presentation_id: presentation.id, content_id: contentId }).execute();
  return presentation;
}

/**
 * The wire state: a generated presentation's own; a display one's from its push, `failed` once
 * its render failed for good, `expired` when the push is gone (the device was unbound).
 */
const STATE = sql<string>`case
  when p.kind = 'generated' or p.state = 'failed' then p.state
  when pu.id is null then 'expired'
  when pu.status = 'PREPARE' then 'preparing'
  when pu.status = 'QUEUE' then 'queued'
  when pu.status = 'PUBLISHED' then 'published'
  when pu.status = 'CONFIRMED' then 'confirmed'
  else 'expired' end`;

function presentationQuery(db: Db) {
  return db.selectFrom("presentations as p")
    .leftJoin(pushes.stateToJoin().as("pu"), "pu.id", "p.push_id")
    .selectAll("p")
    .select([STATE.as("wire_state"), "pu.render_prefix as push_render_prefix"]);
}

/** One presentation row with its wire state. */
export type PresentationRow = NonNullable<Awaited<ReturnType<typeof findPresentation>>>;

/** The caller's presentation, or undefined. */
export function findPresentation(db: Db, userId: string, id: string) {
  return presentationQuery(db).where("p.id", "=", id).where("p.user_id", "=", userId)
    .executeTakeFirst();
}

export interface PresentationQuery {
  kinds: Array<"generated" | "display">;
  state?: string;
  /** Keyset: ids below this one (UUID v7 sorts by creation time). */
  before?: string;
  limit: number;
}

/** A page of the caller's presentations, newest first; one row more than `limit` if there is. */
export function listPresentations(db: Db, userId: string, q: PresentationQuery) {
  let query = presentationQuery(db).where("p.user_id", "=", userId).where("p.kind", "in", q.kinds);
  if (q.state) query = query.where(STATE, "=", q.state);
  if (q.before) query = query.where("p.id", "<", q.before);
  return query.orderBy("p.id", "desc").limit(q.limit + 1).execute();
}

/** Content ids of each presentation. */
export async function contentIdsOf(db: Db, presentationIds: readonly string[]) {
  const out = new Map<string, string[]>(presentationIds.map((id) => [id, []]));
  if (presentationIds.length === 0) return out;
  const rows = await db.selectFrom("presentation_contents")
    .select(["content_id", "presentation_id"])
    .where("presentation_id", "in", presentationIds).orderBy("content_id").execute();
  for (const row of rows) out.get(row.presentation_id)?.push(row.content_id);
  return out;
}

/**
 * Locks a presentation: rendition completions of one presentation run one at a time. `NO KEY`:
 * inserting a rendition (its foreign key takes a key-share lock) is not held up by it.
 */
export function lockPresentation(trx: Trx, id: string) {
  return trx.selectFrom("presentations").selectAll().where("id", "=", id).forNoKeyUpdate()
    .executeTakeFirst();
}

/** A presentation row by id alone (jobs), without its wire state. */
export function findPresentationById(db: Db, id: string) {
  return db.selectFrom("presentations").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Updates a presentation. */
export function updatePresentation(db: Db, id: string, changes: Updateable<PresentationsTable>) {
  return db.updateTable("presentations").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).execute();
}

/** Marks the display presentation of a push failed (its render failed for good). */
export function failDisplayPresentation(db: Db, pushId: string, failure: RawBuilder<Problem>) {
  return db.updateTable("presentations")
    .set({ state: "failed", failure, updated_at: new Date() })
    .where("push_id", "=", pushId).where("kind", "=", "display").execute();
}

// ---- renditions

/** Inserts a rendition. */
export function insertRendition(trx: Trx, row: Insertable<RenditionsTable>) {
  return trx.insertInto("renditions").values(row).returningAll().executeTakeFirstOrThrow();
}

/** A rendition by id. */
export function findRendition(db: Db, id: string) {
  return db.selectFrom("renditions").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The rendition of a dedup key (SPEC 4.7: presentation, format, width, height, colorMode). */
export function findRenditionByKey(
  db: Db,
  key: { presentationId: string; format: string; width: number; height: number; colorMode: string },
) {
  return db.selectFrom("renditions").selectAll()
    .where("presentation_id", "=", key.presentationId).where("format", "=", "png")
    .where("width", "=", key.width).where("height", "=", key.height)
    .where("color_mode", "=", key.colorMode as RenditionsTable["color_mode"])
    .executeTakeFirst();
}

/** Renditions of each presentation, oldest first. */
export async function renditionsOf(db: Db, presentationIds: readonly string[]) {
  const out = new Map<string, Array<NonNullable<Awaited<ReturnType<typeof findRendition>>>>>(
    presentationIds.map((id) => [id, []]),
  );
  if (presentationIds.length === 0) return out;
  const rows = await db.selectFrom("renditions").selectAll()
    .where("presentation_id", "in", presentationIds).orderBy("id").execute();
  for (const row of rows) out.get(row.presentation_id)?.push(row);
  return out;
}

/**
 * Serialises the rendition requests of one user across every process of the service (SPEC 8:
 * limits counted in the database): a transaction-scoped advisory lock on the user id.
 */
export async function lockUserRenditions(trx: Trx, userId: string) {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`renditions:${userId}`}, 0))`
    .execute(trx);
}

/** Renditions of a presentation, initial ones included (CONTRACT.md). */
export async function countRenditions(trx: Trx, presentationId: string): Promise<number> {
  const row = await trx.selectFrom("renditions").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("presentation_id", "=", presentationId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Starts the user's oldest waiting renditions while fewer than `limit` of theirs hold a slot
 * (preparing and not waiting); returns the ids started, whose jobs the caller sends. The caller
 * holds `lockUserRenditions`.
 */
export async function takeFreeSlots(trx: Trx, userId: string, limit: number): Promise<string[]> {
  const row = await trx.selectFrom("renditions").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("user_id", "=", userId).where("state", "=", "preparing").where("waiting", "=", false)
    .executeTakeFirstOrThrow();
  const free = limit - Number(row.n);
  if (free <= 0) return [];
  const started = await trx.updateTable("renditions").set({
    waiting: false,
    updated_at: new Date(),
  })
    .where(
      "id",
      "in",
      (eb) =>
        eb.selectFrom("renditions").select("id").where("user_id", "=", userId)
          .where("waiting", "=", true).orderBy("id").limit(free),
    )
    .returning("id").execute();
  return started.map((r) => r.id);
}

/** The user's renditions still preparing, waiting ones included (SPEC 8 concurrent limit). */
export async function countPreparing(trx: Trx, userId: string): Promise<number> {
  const row = await trx.selectFrom("renditions").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("user_id", "=", userId).where("state", "=", "preparing").executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Finishes a preparing rendition; false when it was not preparing any more. */
export async function finishRendition(
  trx: Trx,
  id: string,
  changes: Updateable<RenditionsTable>,
): Promise<boolean> {
  const result = await trx.updateTable("renditions").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).where("state", "=", "preparing").executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether every initial rendition of a presentation is done (ready or failed). */
export async function initialRenditionsDone(trx: Trx, presentationId: string): Promise<boolean> {
  const row = await trx.selectFrom("renditions").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("presentation_id", "=", presentationId).where("initial", "=", true)
    .where("state", "=", "preparing").executeTakeFirstOrThrow();
  return Number(row.n) === 0;
}

// ---- idempotency keys

/** The resource a key names for this user and operation, with the request's fingerprint. */
export function findIdempotencyKey(
  db: Db,
  userId: string,
  scope: TargetlessIdempotencyKeysTable["scope"],
  key: string,
) {
  return db.selectFrom("targetless_idempotency_keys").selectAll().where("user_id", "=", userId)
    .where("scope", "=", scope).where("key", "=", key).executeTakeFirst();
}

/** Records a key; a concurrent holder of the same key makes this a unique violation. */
export function insertIdempotencyKey(trx: Trx, row: Insertable<TargetlessIdempotencyKeysTable>) {
  return trx.insertInto("targetless_idempotency_keys").values(row).execute();
}

// ---- account deletion

/** Deletes every targetless row of a user (SPEC 4.1 account deletion). */
export async function deleteAllOf(trx: Trx, userId: string) {
  await trx.deleteFrom("renditions").where("user_id", "=", userId).execute();
  await trx.deleteFrom("presentations").where("user_id", "=", userId).execute();
  await trx.deleteFrom("targetless_contents").where("user_id", "=", userId).execute();
  await trx.deleteFrom("targetless_idempotency_keys").where("user_id", "=", userId).execute();
}
