/** SQL of the accounts domain. Functions take the executor first; lockers take a transaction. */
import { type Expression, expressionBuilder, sql } from "kysely";
import type { DB, Db, Trx } from "../../schema.ts";

/** A user row by id, or undefined. */
export function findUserById(db: Db, id: string) {
  return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Whether the user `userId` names exists and is not disabled, as an expression of the caller's
 * query: another domain checks the owner of its row (a PAT) in that row's one round trip.
 */
export function userIsActive(userId: Expression<string>) {
  const eb = expressionBuilder<DB, never>();
  return eb.exists(
    eb.selectFrom("users").select("users.id").where("users.id", "=", userId)
      .where("users.disabled_at", "is", null),
  );
}

/** A user by email or username, case-insensitively. */
export function findUserByIdentifier(db: Db, identifier: string) {
  const key = identifier.trim().toLowerCase();
  return db.selectFrom("users").selectAll()
    .where((eb) => eb.or([eb(sql`lower(email)`, "=", key), eb(sql`lower(username)`, "=", key)]))
    .executeTakeFirst();
}

/** A user by email, case-insensitively (a provider's verified email). */
export function findUserByEmail(db: Db, email: string) {
  return db.selectFrom("users").selectAll()
    .where(sql`lower(email)`, "=", email.trim().toLowerCase()).executeTakeFirst();
}

/** Inserts a user; a duplicate email or username raises PostgreSQL error 23505. */
export function insertUser(
  db: Db,
  user: { id: string; email: string; username: string; password_hash: string | null },
) {
  return db.insertInto("users").values(user).returningAll().executeTakeFirstOrThrow();
}

/** Updates username and/or password hash; returns the new row. */
export function updateUser(
  db: Db,
  id: string,
  changes: { username?: string; password_hash?: string },
) {
  return db.updateTable("users").set({ ...changes, updated_at: new Date() })
    .where("id", "=", id).returningAll().executeTakeFirst();
}

/** Removes a user's password: from now on only a provider sign-in opens the account. */
export function clearPassword(db: Db, id: string) {
  return db.updateTable("users").set({ password_hash: null, updated_at: new Date() })
    .where("id", "=", id).execute();
}

/** Locks the user row for the rest of the transaction. */
export function lockUser(trx: Trx, id: string) {
  return trx.selectFrom("users").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

/**
 * Holds the user row against a concurrent take-over or password change (which lock it FOR
 * UPDATE) until the transaction ends; returns the row as it is now.
 */
export function shareLockUser(trx: Trx, id: string) {
  return trx.selectFrom("users").selectAll().where("id", "=", id).forShare().executeTakeFirst();
}

/** Whether a session of the user still exists (it ends with logout, deletion or a take-over). */
export async function sessionExists(db: Db, sessionId: string, userId: string) {
  const row = await db.selectFrom("sessions").select("id").where("id", "=", sessionId)
    .where("user_id", "=", userId).executeTakeFirst();
  return row !== undefined;
}

/** Hard-deletes a user; sessions, tokens, links and owned rows go by ON DELETE CASCADE. */
export function deleteUser(trx: Trx, id: string) {
  return trx.deleteFrom("users").where("id", "=", id).executeTakeFirst();
}

/** The session and its active user for an access token, in one round trip. */
export function findActiveSession(db: Db, sessionId: string, userId: string) {
  return db.selectFrom("sessions").innerJoin("users", "users.id", "sessions.user_id")
    .select(["sessions.id", "sessions.last_used_at"])
    .where("sessions.id", "=", sessionId).where("sessions.user_id", "=", userId)
    .where("users.disabled_at", "is", null)
    .executeTakeFirst();
}

/** Inserts a session. */
export function insertSession(
  db: Db,
  session: { id: string; user_id: string; user_agent: string; ip: string },
) {
  return db.insertInto("sessions").values(session).execute();
}

/** Marks a session used now. */
export function touchSession(db: Db, sessionId: string) {
  return db.updateTable("sessions").set({ last_used_at: new Date() })
    .where("id", "=", sessionId).execute();
}

/** The sessions of a user, most recently used first. */
export function listSessions(db: Db, userId: string) {
  return db.selectFrom("sessions").selectAll().where("user_id", "=", userId)
    .orderBy("last_used_at", "desc").orderBy("id", "desc").execute();
}

/** Deletes one session of a user (its refresh tokens cascade); returns how many went. */
export async function deleteSession(db: Db, userId: string, sessionId: string): Promise<number> {
  const result = await db.deleteFrom("sessions").where("id", "=", sessionId)
    .where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes every session of a user, optionally sparing one. */
export function deleteSessionsOfUser(db: Db, userId: string, except?: string) {
  let query = db.deleteFrom("sessions").where("user_id", "=", userId);
  if (except) query = query.where("id", "!=", except);
  return query.execute();
}

/** Stores the digest of a new refresh token. */
export function insertRefreshToken(
  db: Db,
  token: { token_digest: string; session_id: string; user_id: string; expires_at: Date },
) {
  return db.insertInto("refresh_tokens").values(token).execute();
}

/**
 * Consumes a refresh token: marks it used if it is unused and unexpired, in one statement, so
 * of two concurrent presentations exactly one gets the row back.
 */
export function consumeRefreshToken(trx: Trx, digest: string) {
  return trx.updateTable("refresh_tokens").set({ used_at: new Date() })
    .where("token_digest", "=", digest).where("used_at", "is", null)
    .where("expires_at", ">", new Date())
    .returning(["session_id", "user_id"]).executeTakeFirst();
}

/** A refresh token row by digest, used or not. */
export function findRefreshToken(db: Db, digest: string) {
  return db.selectFrom("refresh_tokens").selectAll().where("token_digest", "=", digest)
    .executeTakeFirst();
}

/**
 * Serialises password-check accounting for one account key and one source until the transaction
 * ends, so counting and reserving are atomic across processes. Always account first, then
 * source: every caller takes them in that order, so two reservations cannot deadlock.
 */
export async function lockLoginKeys(trx: Trx, accountKey: string, source: string) {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`login:account:${accountKey}`}, 0))`
    .execute(trx);
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`login:ip:${source}`}, 0))`
    .execute(trx);
}

/** Whose failures a count takes: an account key, a source, or both together. */
export type FailureFilter = { account_key?: string; ip?: string };

/**
 * Seconds until fewer than `limit` failures matching `filter` fall in the last `windowSeconds`,
 * or null when there are fewer already: the `limit`-th newest failure in the window leaves first.
 */
export async function secondsUntilUnderLimit(
  db: Db,
  filter: FailureFilter,
  limit: number,
  windowSeconds: number,
): Promise<number | null> {
  const window = sql`make_interval(secs => ${windowSeconds})`;
  let query = db.selectFrom("login_failures")
    .select(sql<string>`extract(epoch from failed_at + ${window} - clock_timestamp())`.as("wait"))
    .where("failed_at", ">", sql<Date>`clock_timestamp() - ${window}`);
  if (filter.account_key !== undefined) query = query.where("account_key", "=", filter.account_key);
  if (filter.ip !== undefined) query = query.where("ip", "=", filter.ip);
  const row = await query.orderBy("failed_at", "desc").offset(limit - 1).limit(1)
    .executeTakeFirst();
  return row ? Math.max(1, Math.ceil(Number(row.wait))) : null;
}

/** Records a password check (as failed until `deleteLoginFailure` says otherwise). */
export function insertLoginFailure(db: Db, row: { id: string; account_key: string; ip: string }) {
  return db.insertInto("login_failures").values(row).execute();
}

/** Forgets a recorded check: the password was right. */
export function deleteLoginFailure(db: Db, id: string) {
  return db.deleteFrom("login_failures").where("id", "=", id).execute();
}

/** Deletes failures older than `seconds`, which no window reaches any more. */
export function pruneLoginFailures(db: Db, seconds: number) {
  return db.deleteFrom("login_failures")
    .where("failed_at", "<", sql<Date>`clock_timestamp() - make_interval(secs => ${seconds})`)
    .execute();
}
