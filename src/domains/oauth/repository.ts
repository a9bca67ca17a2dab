/**
 * SQL of provider sign-in: the single-use state rows and the provider links. Users are read,
 * locked and created through accounts' service (SPEC 4.2).
 */
import type { Updateable } from "kysely";
import type { Db } from "../../schema.ts";
import type { OauthAccountsTable, OauthStatesTable } from "./tables.ts";

/** Stores a new state row. */
export function insertState(db: Db, row: Omit<OauthStatesTable, "created_at">) {
  return db.insertInto("oauth_states").values(row).execute();
}

/**
 * Consumes a state: deletes and returns it when it exists, is unexpired, is of this provider and
 * was started by a browser holding one of these bindings, in one statement, so a replayed or
 * raced state is found by exactly one callback and a foreign browser cannot burn it.
 */
export function consumeState(
  db: Db,
  digest: string,
  provider: string,
  browserDigests: string[],
) {
  return db.deleteFrom("oauth_states").where("state_digest", "=", digest)
    .where("provider", "=", provider).where("browser_digest", "in", browserDigests)
    .where("expires_at", ">", new Date())
    .returningAll().executeTakeFirst();
}

/** Drops expired states (abandoned sign-ins). */
export function deleteExpiredStates(db: Db) {
  return db.deleteFrom("oauth_states").where("expires_at", "<=", new Date()).execute();
}

/** A provider link by the provider's subject. */
export function findLink(db: Db, provider: string, subject: string) {
  return db.selectFrom("oauth_accounts").selectAll().where("provider", "=", provider)
    .where("provider_user_id", "=", subject).executeTakeFirst();
}

/** Inserts a link unless the provider subject is already linked; returns it if inserted. */
export function insertLink(
  db: Db,
  link: {
    id: string;
    user_id: string;
    provider: string;
    provider_user_id: string;
    email: string;
    provider_refresh_token: string | null;
    provider_client_id: string | null;
    display_name: string | null;
  },
) {
  return db.insertInto("oauth_accounts").values(link)
    .onConflict((oc) => oc.columns(["provider", "provider_user_id"]).doNothing())
    .returningAll().executeTakeFirst();
}

/** Updates a link. */
export function updateLink(db: Db, id: string, changes: Updateable<OauthAccountsTable>) {
  return db.updateTable("oauth_accounts").set(changes).where("id", "=", id).execute();
}

/** The identity-provider links of a user, oldest first. */
export function listLinks(db: Db, userId: string) {
  return db.selectFrom("oauth_accounts").selectAll().where("user_id", "=", userId)
    .orderBy("linked_at").execute();
}

/** The provider refresh tokens of a user at one provider, for revocation. */
export function linksWithTokens(db: Db, userId: string, provider: string) {
  return db.selectFrom("oauth_accounts")
    .select(["id", "provider_refresh_token", "provider_client_id"])
    .where("user_id", "=", userId).where("provider", "=", provider)
    .where("provider_refresh_token", "is not", null).execute();
}
