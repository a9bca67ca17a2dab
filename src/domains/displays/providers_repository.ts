/** SQL of displays behind another provider (`display_providers`, migrations/1040). */
import type { Insertable, Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import type { DisplayProvidersTable } from "./tables.ts";

export function insertProvider(trx: Trx, row: Insertable<DisplayProvidersTable>) {
  return trx.insertInto("display_providers").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findProvider(db: Db, deviceId: string) {
  return db.selectFrom("display_providers").selectAll().where("device_id", "=", deviceId)
    .executeTakeFirst();
}

export function updateProvider(
  db: Db,
  deviceId: string,
  changes: Updateable<DisplayProvidersTable>,
) {
  return db.updateTable("display_providers").set(changes).where("device_id", "=", deviceId)
    .returningAll().executeTakeFirst();
}

/**
 * The feed of a token's hash with its display's profile, in one query (the unauthenticated
 * `GET /api/feeds/{token}.png`: an unknown token costs one index lookup).
 */
export function findFeed(db: Db, tokenHash: string) {
  return db.selectFrom("display_providers")
    .innerJoin("displays", "displays.device_id", "display_providers.device_id")
    .selectAll("displays")
    .where("display_providers.feed_token_hash", "=", tokenHash)
    .where("displays.status", "=", "claimed")
    .executeTakeFirst();
}

/** A device that left its owner keeps no feed and no credentials (unbind, account deletion). */
export function deleteProvider(trx: Trx, deviceId: string) {
  return trx.deleteFrom("display_providers").where("device_id", "=", deviceId).execute();
}
