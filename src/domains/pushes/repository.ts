/** SQL of pushes. Functions that lock or promote take a transaction. */
import { expressionBuilder, type Insertable, type Selectable, sql, type Updateable } from "kysely";
import type { DB, Db, Trx } from "../../schema.ts";
import type { Anchor } from "../../infra/lib/cursor.ts";
import type { PushesTable, PushStatus } from "./tables.ts";
import { createdAtText, olderThan } from "../../infra/db/keyset.ts";

export function insertPush(db: Db, row: Insertable<PushesTable>) {
  return db.insertInto("pushes").values(row).returningAll().executeTakeFirstOrThrow();
}

export function insertPushes(trx: Trx, rows: Insertable<PushesTable>[]) {
  return trx.insertInto("pushes").values(rows).returningAll().execute();
}

/**
 * What another domain reads of a push beside its own rows (a display presentation mirrors its
 * push's state), as a table to join in its query: one round trip, a read only, and only this
 * module names `pushes`.
 */
export function stateToJoin() {
  return expressionBuilder<DB, never>().selectFrom("pushes")
    .select(["id", "status", "render_prefix"]);
}

export function findPush(db: Db, id: string) {
  return db.selectFrom("pushes").selectAll().where("id", "=", id).executeTakeFirst();
}

/** A display downloaded the push's picture: its first download is kept. */
export function markFetched(db: Db, id: string, at: Date) {
  return db.updateTable("pushes").set({ fetched_at: at }).where("id", "=", id)
    .where("fetched_at", "is", null).execute();
}

/** Pushes by id, many at once (the latest pushes of a burst of `get_push`). */
export async function findPushes(
  db: Db,
  ids: string[],
): Promise<Map<string, Selectable<PushesTable>>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom("pushes").selectAll().where("id", "in", ids).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** A push of one device, or undefined when it belongs elsewhere. */
export function findDevicePush(db: Db, deviceId: string, id: string) {
  return db.selectFrom("pushes").selectAll().where("id", "=", id).where("device_id", "=", deviceId)
    .executeTakeFirst();
}

/** Renders waiting before this one stop lowering a push's place at this many (pg-boss priority). */
export const MAX_RENDER_BACKLOG = 10_000;

/**
 * The renders a user has waiting (pushes in PREPARE, not failed for good), up to
 * `MAX_RENDER_BACKLOG`, holding the user's transaction-scoped advisory lock first: a user's
 * concurrent pushes count one after another, so each is one place further back (CONTRACT.md
 * "Display ownership and fair shares"; docs/decisions.md "Jobs and rendering").
 */
export async function lockRenderBacklog(trx: Trx, userId: string): Promise<number> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`renders:${userId}`}, 0))`
    .execute(trx);
  const { count } = await trx.selectFrom(
    trx.selectFrom("pushes").select("id").where("user_id", "=", userId)
      .where("status", "=", "PREPARE").where("render_failed_at", "is", null)
      .limit(MAX_RENDER_BACKLOG).as("waiting"),
  ).select((eb) => eb.fn.countAll<string>().as("count")).executeTakeFirstOrThrow();
  return Number(count);
}

/** Of these pushes, the ids of those in PREPARE and not failed for good. */
export async function preparing(db: Db, ids: string[]): Promise<string[]> {
  const rows = await db.selectFrom("pushes").select("id").where("id", "in", ids)
    .where("status", "=", "PREPARE").where("render_failed_at", "is", null).execute();
  return rows.map((row) => row.id);
}

export function lockPush(trx: Trx, id: string) {
  return trx.selectFrom("pushes").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

/**
 * SPEC 3.1: the push to promote next: highest priority, then oldest. Callers hold the device
 * row lock, so two promotions of one device cannot pick the same push. `fresh`: only a push never
 * published (not one `current-push` sent back to the queue), for the rotations nobody asked for.
 */
export function nextQueued(trx: Trx, deviceId: string, fresh = false) {
  return trx.selectFrom("pushes").selectAll()
    .where("device_id", "=", deviceId).where("status", "=", "QUEUE")
    .$if(fresh, (qb) => qb.where("published_at", "is", null))
    .orderBy("priority", "desc").orderBy("created_at", "asc").orderBy("id", "asc")
    .limit(1).forUpdate().executeTakeFirst();
}

/**
 * Whether a push of the device waits in QUEUE or is still rendering (PREPARE, not failed);
 * `fresh` as for `nextQueued`: a push sent back to the queue does not count.
 */
export async function hasWaiting(db: Db, deviceId: string, fresh = false) {
  const row = await db.selectFrom("pushes").select("id").where("device_id", "=", deviceId)
    .where((eb) =>
      eb.or([
        fresh
          ? eb.and([eb("status", "=", "QUEUE"), eb("published_at", "is", null)])
          : eb("status", "=", "QUEUE"),
        eb.and([eb("status", "=", "PREPARE"), eb("render_failed_at", "is", null)]),
      ])
    ).limit(1).executeTakeFirst();
  return row !== undefined;
}

export function updatePush(db: Db, id: string, changes: Updateable<PushesTable>) {
  return db.updateTable("pushes").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

/** Moves a push to `to` only when it is currently in one of `from`; returns it when moved. */
export function transition(
  db: Db,
  id: string,
  from: PushStatus[],
  changes: Updateable<PushesTable> & { status: PushStatus },
) {
  return db.updateTable("pushes").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).where("status", "in", from).returningAll().executeTakeFirst();
}

/**
 * A rendered push of the device whose three files have exactly these digests (issue 12:
 * identical renders are stored once per device), oldest first.
 */
export function findIdenticalRender(
  db: Db,
  deviceId: string,
  digests: { png: string; raw2: string; raw4: string },
) {
  return db.selectFrom("pushes").select(["id", "render_prefix", "file_id"])
    .where("device_id", "=", deviceId).where("png_sha256", "=", digests.png)
    .where("raw2_sha256", "=", digests.raw2).where("raw4_sha256", "=", digests.raw4)
    .where("render_prefix", "is not", null).where("status", "!=", "PREPARE")
    .orderBy("rendered_at").limit(1).executeTakeFirst();
}

/**
 * Records a failed render attempt; the push stays in PREPARE. `forGood`: no attempt follows, and
 * the push history shows the error (issue 25).
 */
export function recordRenderFailure(db: Db, id: string, error: string, forGood: boolean) {
  return db.updateTable("pushes")
    .set((eb) => ({
      render_attempts: eb("render_attempts", "+", 1),
      render_error: error.slice(0, 1000),
      ...(forGood ? { render_failed_at: new Date() } : {}),
      updated_at: new Date(),
    }))
    .where("id", "=", id).where("status", "=", "PREPARE").execute();
}

export interface HistoryQuery {
  status?: PushStatus;
  from?: Date;
  to?: Date;
  after?: Anchor;
  limit: number;
}

/** One page of a device's pushes, newest first, keyset-anchored on (created_at, id). */
export function listHistory(db: Db, deviceId: string, q: HistoryQuery) {
  let query = db.selectFrom("pushes").selectAll().select(createdAtText.as("created_at_text"))
    .where("device_id", "=", deviceId);
  if (q.status) query = query.where("status", "=", q.status);
  if (q.from) query = query.where("created_at", ">=", q.from);
  if (q.to) query = query.where("created_at", "<=", q.to);
  if (q.after) {
    query = query.where(olderThan(q.after));
  }
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(q.limit + 1).execute();
}

/** Deletes every push of a device (unbind, account deletion); returns their ids. */
export function deletePushesOfDevice(trx: Trx, deviceId: string) {
  return trx.deleteFrom("pushes").where("device_id", "=", deviceId).returning(["id"]).execute();
}

/**
 * The shown push next to `from` in the device's history (issue 24's button): the newest one
 * created before it (`older`), or the oldest created after it (`newer`). Only pushes that were
 * published once (PUBLISHED, CONFIRMED, EXPIRED) count: queued ones come by rotation.
 */
export function shownNeighbour(
  trx: Trx,
  deviceId: string,
  from: { created_at: Date; id: string } | null,
  direction: "older" | "newer",
) {
  const older = direction === "older";
  let query = trx.selectFrom("pushes").selectAll().where("device_id", "=", deviceId)
    .where("status", "in", ["PUBLISHED", "CONFIRMED", "EXPIRED"])
    .where("render_prefix", "is not", null);
  if (from) {
    query = query.where((eb) =>
      eb.or([
        eb("created_at", older ? "<" : ">", from.created_at),
        eb.and([eb("created_at", "=", from.created_at), eb("id", older ? "<" : ">", from.id)]),
      ])
    );
  }
  return query.orderBy("created_at", older ? "desc" : "asc").orderBy("id", older ? "desc" : "asc")
    .limit(1).executeTakeFirst();
}

/**
 * Devices' pushes whose params carry `paramKey`, beyond the newest `keep` of each device (never
 * its latest push, which does not count), at most 500 a device.
 */
export function scheduledBeyond(
  trx: Trx,
  devices: { id: string; latest_push_id: string | null }[],
  paramKey: string,
  keep: number,
) {
  const latest = devices.flatMap((d) => d.latest_push_id ? [d.latest_push_id] : []);
  const ranked = trx.selectFrom("pushes")
    .select(["id", "device_id", "render_prefix", "file_id"])
    .select(
      sql<number>`row_number() over (partition by device_id order by created_at desc, id desc)`
        .as("rank"),
    )
    .where("device_id", "in", devices.map((d) => d.id))
    .where(sql<boolean>`params ->> ${paramKey} is not null`)
    .$if(latest.length > 0, (qb) => qb.where("id", "not in", latest));
  return trx.selectFrom(ranked.as("ranked")).select(["id", "device_id", "render_prefix", "file_id"])
    .where("rank", ">", keep).where("rank", "<=", keep + 500).execute();
}

/** Of these devices, those with more than `keep` pushes whose params carry `paramKey` (no lock). */
export async function withScheduledBeyond(
  db: Db,
  deviceIds: string[],
  paramKey: string,
  keep: number,
): Promise<string[]> {
  if (deviceIds.length === 0) return [];
  const rows = await db.selectFrom("pushes").select("device_id")
    .where("device_id", "in", deviceIds)
    .where(sql<boolean>`params ->> ${paramKey} is not null`)
    .groupBy("device_id").having((eb) => eb.fn.countAll(), ">", keep).execute();
  return rows.map((row) => row.device_id);
}

export function deletePushes(trx: Trx, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return trx.deleteFrom("pushes").where("id", "in", ids).execute();
}

/** Which of these render prefixes a push of these devices still points at. */
export async function prefixesInUse(
  trx: Trx,
  deviceIds: string[],
  prefixes: string[],
): Promise<Set<string>> {
  if (prefixes.length === 0) return new Set();
  const rows = await trx.selectFrom("pushes").select("render_prefix").distinct()
    .where("device_id", "in", deviceIds).where("render_prefix", "in", prefixes).execute();
  return new Set(rows.map((r) => r.render_prefix!));
}

/**
 * Pushes of the user waiting for the same drawing as `push` (same template and params: a
 * playlist's item due on many devices), still PREPARE and not failed, oldest first.
 */
export function preparedAlike(
  db: Db,
  push: { id: string; user_id: string; template: string; params: unknown },
  limit: number,
) {
  return db.selectFrom("pushes").selectAll().where("user_id", "=", push.user_id)
    .where("status", "=", "PREPARE").where("render_failed_at", "is", null)
    .where("template", "=", push.template).where("id", "!=", push.id)
    // Sent as text and cast (a driver sending a jsonb parameter would encode the string again).
    .where(sql<boolean>`params = cast(${JSON.stringify(push.params ?? {})}::text as jsonb)`)
    .orderBy("created_at").orderBy("id").limit(limit).execute();
}

/** `findIdenticalRender` for many devices at once: the oldest such render of each. */
export async function findIdenticalRenders(
  db: Db,
  deviceIds: string[],
  digests: { png: string; raw2: string; raw4: string },
): Promise<Map<string, { render_prefix: string; file_id: string | null }>> {
  if (deviceIds.length === 0) return new Map();
  const rows = await db.selectFrom("pushes").select(["device_id", "render_prefix", "file_id"])
    .where("device_id", "in", deviceIds).where("png_sha256", "=", digests.png)
    .where("raw2_sha256", "=", digests.raw2).where("raw4_sha256", "=", digests.raw4)
    .where("render_prefix", "is not", null).where("status", "!=", "PREPARE")
    .orderBy("rendered_at").execute();
  const found = new Map<string, { render_prefix: string; file_id: string | null }>();
  for (const row of rows) {
    if (!found.has(row.device_id)) {
      found.set(row.device_id, { render_prefix: row.render_prefix!, file_id: row.file_id });
    }
  }
  return found;
}

/** Pushes by id, locked, in id order (many at once: a group's render or publication). */
export function lockPushes(trx: Trx, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return trx.selectFrom("pushes").selectAll().where("id", "in", ids).orderBy("id").forUpdate()
    .execute();
}

/**
 * PREPARE → QUEUE for many pushes of one drawing, each with its own files (`prefix`, `fileId`),
 * in one statement.
 */
export async function storeRenders(
  trx: Trx,
  rows: { id: string; prefix: string; fileId: string }[],
  digests: { png: string; raw2: string; raw4: string },
  at: Date,
): Promise<void> {
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map((r) => sql`(${r.id}::uuid, ${r.prefix}::text, ${r.fileId}::uuid)`),
  );
  await sql`update pushes as p set status = 'QUEUE', render_prefix = v.prefix,
      file_id = v.file_id, png_sha256 = ${digests.png}, raw2_sha256 = ${digests.raw2},
      raw4_sha256 = ${digests.raw4}, rendered_at = ${at}, render_error = null,
      render_attempts = p.render_attempts + 1, updated_at = ${at}
    from (values ${values}) as v(id, prefix, file_id)
    where p.id = v.id and p.status = 'PREPARE'`.execute(trx);
}

/** Moves the pushes among `ids` that are in one of `from` to `to` (many at once). */
export function transitionMany(
  trx: Trx,
  ids: string[],
  from: PushStatus[],
  changes: Updateable<PushesTable> & { status: PushStatus },
) {
  if (ids.length === 0) return Promise.resolve([]);
  return trx.updateTable("pushes").set({ ...changes, updated_at: new Date() })
    .where("id", "in", ids).where("status", "in", from).returningAll().execute();
}
