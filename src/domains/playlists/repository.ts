/** SQL of playlists. */
import { sql } from "kysely";
import type { Insertable, Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import { jsonb } from "../plugins/repository.ts";
import type { PlaylistDevicesTable, PlaylistsTable } from "./tables.ts";

export { jsonb };

export function insertPlaylist(db: Db, row: Insertable<PlaylistsTable>) {
  return db.insertInto("playlists").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function countPlaylists(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom("playlists").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("user_id", "=", userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A user's playlists, newest first. */
export function listPlaylists(db: Db, userId: string) {
  return db.selectFrom("playlists").selectAll().where("user_id", "=", userId)
    .orderBy("created_at", "desc").orderBy("id", "desc").execute();
}

/** One playlist of the user; undefined when unknown or another user's. */
export function findPlaylist(db: Db, userId: string, id: string) {
  return db.selectFrom("playlists").selectAll().where("id", "=", id).where("user_id", "=", userId)
    .executeTakeFirst();
}

export function updatePlaylist(db: Db, id: string, changes: Updateable<PlaylistsTable>) {
  return db.updateTable("playlists").set(changes).where("id", "=", id).returningAll()
    .executeTakeFirst();
}

export async function deletePlaylist(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom("playlists").where("id", "=", id)
    .where("user_id", "=", userId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The user's playlists whose items name a plugin (its deletion drops those items). */
export function lockPlaylistsUsing(trx: Trx, userId: string, pluginId: string) {
  return trx.selectFrom("playlists").selectAll().where("user_id", "=", userId)
    .where(sql<boolean>`items::text like ${`%${pluginId}%`}`).forUpdate().execute();
}

/**
 * The devices running each of these playlists, by playlist, in id order (a device that leaves its
 * owner stops its playlist: mod.ts, so every one is still the playlist owner's).
 */
export async function devicesRunning(db: Db, playlistIds: readonly string[]) {
  const out = new Map<string, string[]>(playlistIds.map((id) => [id, []]));
  if (playlistIds.length === 0) return out;
  const rows = await db.selectFrom("playlist_devices").select(["playlist_id", "device_id"])
    .where("playlist_id", "in", playlistIds).orderBy("device_id").execute();
  for (const row of rows) out.get(row.playlist_id)?.push(row.device_id);
  return out;
}

/** The playlist a device runs, or undefined. */
export function findAssignment(db: Db, deviceId: string) {
  return db.selectFrom("playlist_devices").selectAll().where("device_id", "=", deviceId)
    .executeTakeFirst();
}

/**
 * A device's rotation with its playlist, locked: one advance at a time. `skipLocked`: undefined
 * when another transaction holds it.
 */
export function lockRotation(trx: Trx, deviceId: string, skipLocked = false) {
  const query = rotations(trx).where("playlist_devices.device_id", "=", deviceId);
  return (skipLocked ? query.skipLocked() : query).executeTakeFirst();
}

/** Rotations with their playlist's name, time zone and items, locked. */
function rotations(trx: Trx) {
  return trx.selectFrom("playlist_devices")
    .innerJoin("playlists", "playlists.id", "playlist_devices.playlist_id")
    .selectAll("playlist_devices")
    .select(["playlists.name", "playlists.time_zone", "playlists.items"])
    .forUpdate("playlist_devices");
}

/** `lockRotation` of many devices at once, skipping those another transaction holds. */
export function lockRotations(trx: Trx, deviceIds: string[]) {
  if (deviceIds.length === 0) return Promise.resolve([]);
  return rotations(trx).where("playlist_devices.device_id", "in", deviceIds)
    .orderBy("playlist_devices.device_id").skipLocked().execute();
}

/**
 * The other devices of a device's playlist whose items end by `now + withinMs`, not held by
 * their owner, soonest first, with the playlist's items; none when the device's own item has
 * not ended by `now`.
 */
export function endingAlong(
  db: Db | Trx,
  deviceId: string,
  now: Date,
  withinMs: number,
  limit: number,
) {
  return db.selectFrom("playlist_devices as me")
    .innerJoin("playlist_devices as pd", "pd.playlist_id", "me.playlist_id")
    .innerJoin("playlists", "playlists.id", "me.playlist_id")
    .select(["pd.device_id", "pd.item_ends_at", "playlists.items"])
    .where("me.device_id", "=", deviceId)
    .where("me.item_ends_at", "<=", now)
    .where((eb) => eb.or([eb("me.hold_until", "is", null), eb("me.hold_until", "<=", now)]))
    .where("pd.device_id", "!=", deviceId)
    .where("pd.item_ends_at", "<=", new Date(now.getTime() + withinMs))
    .where((eb) => eb.or([eb("pd.hold_until", "is", null), eb("pd.hold_until", "<=", now)]))
    .orderBy("pd.item_ends_at").limit(limit).execute();
}

/** Serializes the advances of one playlist's devices together (until the commit). */
export async function lockPlaylistAdvance(trx: Trx, playlistId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`playlist:${playlistId}`}, 0))`
    .execute(trx);
}

/** Starts (or restarts) a device on a playlist: its first item is due now. */
export function assign(trx: Trx, row: Insertable<PlaylistDevicesTable>) {
  return trx.insertInto("playlist_devices").values(row).onConflict((oc) =>
    oc.column("device_id").doUpdateSet({
      playlist_id: row.playlist_id,
      user_id: row.user_id,
      item_index: -1,
      item_ends_at: row.item_ends_at,
      hold_until: null,
      plugin_ids: [],
      updated_at: row.item_ends_at,
    })
  ).execute();
}

export function unassign(db: Db, deviceId: string) {
  return db.deleteFrom("playlist_devices").where("device_id", "=", deviceId).execute();
}

/** `updateRotation` of many devices with the same changes. */
export function updateRotations(
  trx: Trx,
  deviceIds: string[],
  changes: Updateable<PlaylistDevicesTable>,
) {
  return trx.updateTable("playlist_devices").set(changes).where("device_id", "in", deviceIds)
    .execute();
}

export function updateRotation(
  db: Db,
  deviceId: string,
  changes: Updateable<PlaylistDevicesTable>,
) {
  return db.updateTable("playlist_devices").set(changes).where("device_id", "=", deviceId)
    .execute();
}

/** The devices a playlist runs on (an edit restarts them). */
export async function devicesOf(db: Db, playlistId: string): Promise<string[]> {
  const rows = await db.selectFrom("playlist_devices").select("device_id")
    .where("playlist_id", "=", playlistId).execute();
  return rows.map((r) => r.device_id);
}

/** The devices whose current item draws a plugin. */
export async function devicesShowing(db: Db, pluginId: string): Promise<string[]> {
  const rows = await db.selectFrom("playlist_devices").select("device_id")
    .where(sql<boolean>`${pluginId}::uuid = any(plugin_ids)`).execute();
  return rows.map((r) => r.device_id);
}

/** Devices whose item ended more than `graceMs` ago: their advance job was lost. */
export async function overdue(db: Db, now: Date, graceMs: number, limit: number) {
  const rows = await db.selectFrom("playlist_devices").select("device_id")
    .where("item_ends_at", "<", new Date(now.getTime() - graceMs))
    .orderBy("item_ends_at").limit(limit).execute();
  return rows.map((r) => r.device_id);
}

/** Of these devices, those on a playlist whose item has ended by `now`. */
export async function endedAmong(db: Db, deviceIds: string[], now: Date): Promise<string[]> {
  if (deviceIds.length === 0) return [];
  const rows = await db.selectFrom("playlist_devices").select("device_id")
    .where("device_id", "in", deviceIds).where("item_ends_at", "<=", now).execute();
  const ended = new Set(rows.map((r) => r.device_id));
  return deviceIds.filter((id) => ended.has(id));
}

/** A device leaving its owner stops its playlist (the `deviceUnlinked` hook). */
export async function deleteRotation(trx: Trx, deviceId: string): Promise<void> {
  await trx.deleteFrom("playlist_devices").where("device_id", "=", deviceId).execute();
}

/** The plugins current items draw now, across devices (at most `limit`). */
export async function shownPlugins(db: Db, limit: number): Promise<string[]> {
  const rows = await db.selectFrom("playlist_devices")
    .select(sql<string>`unnest(plugin_ids)`.as("id"))
    .where("item_index", ">=", 0)
    .distinct()
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}
