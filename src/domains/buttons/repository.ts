/** SQL of display button actions: one row per display whose owner chose one. */
import type { Db, Trx } from "../../schema.ts";

export async function findAction(db: Db, deviceId: string) {
  const row = await db.selectFrom("display_buttons").select("action")
    .where("device_id", "=", deviceId).executeTakeFirst();
  return row?.action;
}

export async function setAction(db: Db, deviceId: string, action: string) {
  await db.insertInto("display_buttons").values({ device_id: deviceId, action })
    .onConflict((oc) => oc.column("device_id").doUpdateSet({ action })).execute();
}

export async function deleteAction(trx: Trx, deviceId: string) {
  await trx.deleteFrom("display_buttons").where("device_id", "=", deviceId).execute();
}
