/** SQL of personal access tokens. */
import type { Db } from "../../schema.ts";
import type { PersonalAccessTokensTable } from "./tables.ts";
import type { Insertable } from "kysely";
import * as accounts from "../accounts/repository.ts";

/** Stores a new token (its digest only). */
export function insertPat(db: Db, row: Insertable<PersonalAccessTokensTable>) {
  return db.insertInto("personal_access_tokens").values(row).returningAll()
    .executeTakeFirstOrThrow();
}

/** The tokens of a user, newest first. */
export function listPats(db: Db, userId: string) {
  return db.selectFrom("personal_access_tokens").selectAll().where("user_id", "=", userId)
    .orderBy("created_at", "desc").orderBy("id", "desc").execute();
}

/**
 * Revokes a token of a user in one statement; an already revoked one keeps its `revoked_at`.
 * True when the user has a token of that id; another user's token is not touched.
 */
export async function revokePat(db: Db, userId: string, id: string): Promise<boolean> {
  const row = await db.updateTable("personal_access_tokens")
    .set((eb) => ({ revoked_at: eb.fn.coalesce("revoked_at", eb.val(new Date())) }))
    .where("id", "=", id).where("user_id", "=", userId)
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** Revokes every active token of a user. */
export function revokeAllPatsOfUser(db: Db, userId: string) {
  return db.updateTable("personal_access_tokens").set({ revoked_at: new Date() })
    .where("user_id", "=", userId).where("revoked_at", "is", null).execute();
}

/**
 * A token by digest with whether its owner is active, in one round trip: the owner's state is
 * accounts' expression over the token's `user_id` (accounts owns `users`).
 */
export function findPatForAuth(db: Db, digest: string) {
  return db.selectFrom("personal_access_tokens as p")
    .select((eb) => [
      "p.id",
      "p.user_id",
      "p.expires_at",
      "p.revoked_at",
      "p.last_used_at",
      accounts.userIsActive(eb.ref("p.user_id")).as("owner_active"),
    ])
    .where("p.token_digest", "=", digest).executeTakeFirst();
}

/**
 * Records use, at most once per 5 minutes (SPEC 8): the condition sits in the statement, so
 * concurrent requests cannot write it twice in the window.
 */
export function touchPat(db: Db, id: string, now: Date) {
  const threshold = new Date(now.getTime() - 5 * 60 * 1000);
  return db.updateTable("personal_access_tokens").set({ last_used_at: now })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", threshold)]))
    .execute();
}
