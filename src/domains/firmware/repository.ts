/** SQL of firmware updates on the devices' side: holds and offers (one row per device). */
import { sql } from "kysely";
import type { Db, Trx } from "../../schema.ts";

/** A day: the firmware retries an update at most this often, and so does the service. */
export const OFFER_EVERY_MS = 24 * 3600 * 1000;

export async function findState(db: Db, deviceId: string) {
  return await db.selectFrom("device_firmware").selectAll().where("device_id", "=", deviceId)
    .executeTakeFirst();
}

export async function setHeld(db: Db, deviceId: string, held: boolean) {
  await db.insertInto("device_firmware").values({ device_id: deviceId, held })
    .onConflict((oc) => oc.column("device_id").doUpdateSet({ held })).execute();
}

/**
 * Records an offer of `buildId` now, unless the device is held or had an offer within the last
 * day: true when this call made the offer. One statement, so two polls at once offer once.
 */
export async function claimOffer(db: Db | Trx, deviceId: string, buildId: string, now: Date) {
  const since = new Date(now.getTime() - OFFER_EVERY_MS);
  const row = await db.insertInto("device_firmware")
    .values({ device_id: deviceId, offered_at: now, offered_build_id: buildId })
    .onConflict((oc) =>
      oc.column("device_id").doUpdateSet({ offered_at: now, offered_build_id: buildId })
        .where("device_firmware.held", "=", false)
        .where(sql<boolean>`(device_firmware.offered_at is null
          or device_firmware.offered_at <= ${since})`)
    )
    .returning("device_id").executeTakeFirst();
  return row !== undefined;
}

/** A device leaving its owner: its hold (the owner's choice) goes, its offer history stays. */
export async function clearHold(trx: Trx, deviceId: string) {
  await trx.updateTable("device_firmware").set({ held: false }).where("device_id", "=", deviceId)
    .execute();
}
