/** SQL of devices as their owners and the MQTT gateway see them. */
import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import type { DeviceCommandsTable, DevicesTable } from "./tables.ts";

/** One device by id. */
export function findDevice(db: Db, id: string) {
  return db.selectFrom("devices").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Devices by thing name, many at once (a burst of device messages reads them in batches). */
export async function findDevicesByThings(
  db: Db,
  thingNames: string[],
): Promise<Map<string, Selectable<DevicesTable>>> {
  if (thingNames.length === 0) return new Map();
  const rows = await db.selectFrom("devices").selectAll().where("thing_name", "in", thingNames)
    .execute();
  return new Map(rows.map((row) => [row.thing_name, row]));
}

/** Locks one device row for the rest of the transaction (push promotion, unbind). */
export function lockDevice(trx: Trx, id: string) {
  return trx.selectFrom("devices").selectAll().where("id", "=", id).forUpdate()
    .executeTakeFirst();
}

/** The devices bound to a user, oldest binding first. */
export function listOwnedDevices(db: Db, ownerId: string) {
  return db.selectFrom("devices").selectAll().where("owner_id", "=", ownerId)
    .orderBy("bound_at", "asc").orderBy("id", "asc").execute();
}

/** Updates one device by id; returns the new row. */
export function updateDevice(db: Db, id: string, changes: Updateable<DevicesTable>) {
  return db.updateTable("devices").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).returningAll().executeTakeFirst();
}

/** What one display's poll reports (devices/service.ts `reportDisplay`). */
export interface DisplayReport {
  id: string;
  state: Record<string, string>;
  at: Date;
  /** Absent: the row keeps what it has. */
  battery?: number | null;
  firmware?: string | null;
}

/**
 * Writes many displays' reports in one statement (a fleet's polls, batched); returns the written
 * rows' ids and owners (what the report reactions first look at) by id. A report older than the one a row holds is not written (two batches may reach
 * the database out of order). Changes no announced column: caches are not disturbed.
 */
export async function reportDisplays(
  db: Db,
  reports: DisplayReport[],
): Promise<Map<string, Pick<Selectable<DevicesTable>, "id" | "owner_id">>> {
  const values = JSON.stringify(reports.map((r) => ({
    id: r.id,
    state: r.state,
    at: r.at.toISOString(),
    battery: r.battery ?? null,
    firmware: r.firmware ?? null,
  })));
  const rows = await db.updateTable("devices")
    .from(
      sql`jsonb_to_recordset(${values}::text::jsonb)`.as<"v">(
        sql`v(id uuid, state jsonb, at timestamptz, battery integer, firmware text)`,
      ),
    )
    .set({
      state: sql`v.state`,
      state_updated_at: sql`v.at`,
      last_seen_at: sql`v.at`,
      online: true,
      battery: sql`coalesce(v.battery, devices.battery)`,
      firmware: sql`coalesce(v.firmware, devices.firmware)`,
      updated_at: new Date(),
    })
    .where(sql<boolean>`devices.id = v.id`)
    .where(sql<boolean>`(devices.state_updated_at IS NULL OR devices.state_updated_at <= v.at)`)
    .returning(["devices.id", "devices.owner_id"])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** Updates one device by thing name (MQTT reports); returns the new row. */
export function updateDeviceByThing(
  db: Db,
  thingName: string,
  changes: Updateable<DevicesTable>,
) {
  return db.updateTable("devices").set({ ...changes, updated_at: new Date() })
    .where("thing_name", "=", thingName).returningAll().executeTakeFirst();
}

/**
 * The current credential version of each registered thing among `thingNames` (embedded broker
 * authentication, CONTRACT.md "MQTT topics"); things that are not registered are absent.
 */
export async function credentialVersions(
  db: Db,
  thingNames: string[],
): Promise<Map<string, number>> {
  if (thingNames.length === 0) return new Map();
  const rows = await db.selectFrom("devices").select(["thing_name", "credential_version"])
    .where("thing_name", "in", thingNames).execute();
  return new Map(rows.map((r) => [r.thing_name, r.credential_version]));
}

/** Records a delivered command. */
export function insertCommand(db: Db, row: Insertable<DeviceCommandsTable>) {
  return db.insertInto("device_commands").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The devices of a user, locked, for account deletion. */
export function lockOwnedDevices(trx: Trx, ownerId: string) {
  return trx.selectFrom("devices").selectAll().where("owner_id", "=", ownerId).forUpdate()
    .execute();
}

/** SPEC 3.6: the caller becomes the owner, boundAt is now, the claim code is cleared. */
export function bindDevice(trx: Trx, id: string, userId: string) {
  const now = new Date();
  return trx.updateTable("devices")
    .set({ owner_id: userId, bound_at: now, claim_code: null, updated_at: now })
    .where("id", "=", id).where("owner_id", "is", null)
    .returningAll().executeTakeFirst();
}

/** Locks the device of a hardware id (a display's MAC), if there is one. */
/** Devices by id, locked in id order (many at once: one lock order for every caller). */
export function lockDevices(trx: Trx, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return trx.selectFrom("devices").selectAll().where("id", "in", ids).orderBy("id").forUpdate()
    .execute();
}

/** Devices by id, many at once. */
export function findDevices(db: Db, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("devices").selectAll().where("id", "in", ids).execute();
}

/** The latest push of many devices, in one statement. */
export async function setLatestPushes(
  trx: Trx,
  pairs: { deviceId: string; pushId: string }[],
  at: Date,
): Promise<void> {
  if (pairs.length === 0) return;
  const values = sql.join(pairs.map((p) => sql`(${p.deviceId}::uuid, ${p.pushId}::uuid)`));
  await sql`update devices as d set latest_push_id = v.push_id, latest_push_at = ${at},
      updated_at = ${at}
    from (values ${values}) as v(device_id, push_id) where d.id = v.device_id`.execute(trx);
}

export function lockDeviceByHwId(trx: Trx, hwId: string) {
  return trx.selectFrom("devices").selectAll().where("hw_id", "=", hwId).forUpdate()
    .executeTakeFirst();
}

/** How many displays a user owns: every device that is not the factory's (MQTT). */
export async function countOwnedDisplays(db: Db, ownerId: string) {
  const row = await db.selectFrom("devices").select((eb) => eb.fn.countAll<string>().as("n"))
    .where("owner_id", "=", ownerId).where("transport", "<>", "mqtt").executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A device made here, not by the factory (a display behind another provider). */
export function insertDevice(trx: Trx, row: Insertable<DevicesTable>) {
  return trx.insertInto("devices").values(row).returningAll().executeTakeFirstOrThrow();
}

/** A display's device, created bound to its claimer (CONTRACT.md: transport `http`). */
export function insertDisplayDevice(
  trx: Trx,
  row: { id: string; hw_id: string; thing_name: string; owner_id: string; nickname: string | null },
) {
  const now = new Date();
  return trx.insertInto("devices")
    .values({ ...row, transport: "http", bound_at: now, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("hw_id").doNothing())
    .returningAll().executeTakeFirst();
}
