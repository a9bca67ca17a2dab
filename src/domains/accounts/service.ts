/**
 * Accounts: registration, password login, refresh-token rotation, sessions, profile and account
 * deletion (SPEC 4.1). Every rule lives here; procedures only translate HTTP.
 */
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";
import type { Db, Trx } from "../../schema.ts";
import { badRequest, conflict, unauthorized } from "../../errors.ts";
import * as access from "../../infra/access/mod.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { randomToken, sha256Hex } from "../../infra/lib/crypto.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import type { AccessTokens } from "./access_tokens.ts";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "./passwords.ts";
import { accountKey, type LoginLimiter } from "./login_limiter.ts";
import * as repo from "./repository.ts";
import { type OauthAccountView, type SubscriptionSummary, toSession, toUser } from "./views.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const SESSION = access.hidden("session", "Session not found");

/** Refresh tokens live 30 days from issue; every use rotates them. */
const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;

/** Where a session was opened from; recorded on the session row. */
export interface ClientInfo {
  userAgent: string;
  ip: string;
}

/** What `GET /auth/me` adds about billing; supplied by the billing domain. */
export type SubscriptionSummaryReader = (userId: string) => Promise<SubscriptionSummary | null>;

/** The identity-provider links `GET /auth/me` lists, oldest first; supplied by the oauth domain. */
export type OauthLinksReader = (userId: string) => Promise<OauthAccountView[]>;

/** What `AccountsService` is built from (one object, like every domain's service). */
export interface AccountsDeps {
  db: Db;
  tokens: AccessTokens;
  limiter: LoginLimiter;
  /** What `GET /auth/me` shows of billing; the billing domain supplies it. */
  subscriptionOf?: SubscriptionSummaryReader;
  /** What `GET /auth/me` shows of the provider links; the oauth domain supplies it. */
  linksOf?: OauthLinksReader;
  /** Invalidation of `getMe`'s cache; without it nothing is cached. */
  changes?: ChangeFeed;
}

export class AccountsService {
  private readonly db: Db;
  private readonly tokens: AccessTokens;
  private readonly limiter: LoginLimiter;
  private readonly subscriptionOf: SubscriptionSummaryReader;
  private readonly linksOf: OauthLinksReader;

  constructor(deps: AccountsDeps) {
    this.db = deps.db;
    this.tokens = deps.tokens;
    this.limiter = deps.limiter;
    this.subscriptionOf = deps.subscriptionOf ?? (() => Promise.resolve(null));
    this.linksOf = deps.linksOf ?? (() => Promise.resolve([]));
    this.me = (deps.changes ?? ChangeFeed.disabled()).cache();
  }

  /**
   * `getMe` by user id, dropped when the user, one of its provider links or its subscription
   * changes (src/infra/db/cache/feed.ts).
   */
  private readonly me: TaggedCache<Awaited<ReturnType<AccountsService["readMe"]>>>;

  /** Creates an account and its first session (SPEC 4.1 register). */
  async register(input: { email: string; username: string; password: string }, client: ClientInfo) {
    const user = await this.createUser({
      email: input.email,
      username: input.username,
      passwordHash: await hashPassword(input.password),
    });
    return { ...(await this.openSession(user.id, client)), user: toUser(user) };
  }

  /** Inserts a user row, turning unique violations into the spec's 409s. */
  async createUser(input: { email: string; username: string; passwordHash: string | null }) {
    try {
      return await repo.insertUser(this.db, {
        id: uuidv7(),
        email: input.email.trim(),
        username: input.username.trim(),
        password_hash: input.passwordHash,
      });
    } catch (error) {
      if (isUniqueViolation(error, "users_email_key")) {
        throw conflict("Email is already registered");
      }
      if (isUniqueViolation(error, "users_username_key")) {
        throw conflict("Username is already taken");
      }
      throw error;
    }
  }

  /** Password login by email or username. Unknown users cost the same time as wrong passwords. */
  async login(input: { identifier: string; password: string }, client: ClientInfo) {
    // No account has such an identifier or password; refused before any lookup or hashing.
    if (input.identifier.length > 254 || input.password.length > 1024) {
      throw unauthorized("Invalid credentials");
    }
    const user = await repo.findUserByIdentifier(this.db, input.identifier);
    // CONTRACT.md: over the failure limits, 429 before any hashing.
    const ok = await this.limiter.guard(
      accountKey(user, input.identifier),
      client.ip,
      () =>
        user?.password_hash && !user.disabled_at
          ? verifyPassword(input.password, user.password_hash)
          : verifyAgainstDummy(input.password),
    );
    if (!ok || !user) throw unauthorized("Invalid credentials");
    // The hash was checked outside any transaction (it takes ~100 ms). A take-over by the
    // email's verified owner, or a password change, may have committed since: the session is
    // opened only if the password that was checked is still the account's.
    const pair = await this.db.transaction().execute(async (trx) => {
      const now = await repo.shareLockUser(trx, user.id);
      if (!now || now.password_hash !== user.password_hash || now.disabled_at) return null;
      return await this.insertSession(trx, user.id, client);
    });
    if (!pair) throw unauthorized("Invalid credentials");
    return { ...pair, user: toUser(user) };
  }

  /**
   * Runs `write` only while the caller's session still exists, holding the user row so that a
   * take-over (which ends every session under FOR UPDATE) cannot commit in between: a credential
   * minted by a request already in flight cannot outlive it.
   */
  async whileSessionLives<T>(
    userId: string,
    sessionId: string,
    write: (trx: Trx) => Promise<T>,
  ): Promise<T> {
    return await this.db.transaction().execute(async (trx) => {
      const user = await repo.shareLockUser(trx, userId);
      if (!user || !(await repo.sessionExists(trx, sessionId, userId))) throw unauthorized();
      return await write(trx);
    });
  }

  /** Opens a session for a user and issues its first token pair. */
  async openSession(userId: string, client: ClientInfo) {
    return await this.insertSession(this.db, userId, client);
  }

  private async insertSession(db: Db, userId: string, client: ClientInfo) {
    const sessionId = uuidv7();
    await repo.insertSession(db, {
      id: sessionId,
      user_id: userId,
      user_agent: client.userAgent.slice(0, 512),
      ip: client.ip,
    });
    return await this.issuePair(db, userId, sessionId);
  }

  private async issuePair(db: Db, userId: string, sessionId: string) {
    const refreshToken = `rt_${randomToken(32)}`;
    await repo.insertRefreshToken(db, {
      token_digest: sha256Hex(refreshToken),
      session_id: sessionId,
      user_id: userId,
      expires_at: new Date(Date.now() + REFRESH_TTL_MS),
    });
    return { accessToken: await this.tokens.sign(userId, sessionId), refreshToken };
  }

  /**
   * Rotates a refresh token (SPEC 4.1). The presented token is consumed atomically; presenting
   * a token that was already used revokes every session of its user (RFC 9700 4.14), because
   * either the client or an attacker holds a stolen copy.
   */
  async refresh(refreshToken: string, client: ClientInfo) {
    const digest = sha256Hex(refreshToken);
    const outcome = await this.db.transaction().execute(async (trx) => {
      const consumed = await repo.consumeRefreshToken(trx, digest);
      if (consumed) {
        await trx.updateTable("sessions").set({
          last_used_at: new Date(),
          ip: client.ip,
          user_agent: client.userAgent.slice(0, 512),
        }).where("id", "=", consumed.session_id).execute();
        return { pair: await this.issuePair(trx, consumed.user_id, consumed.session_id) };
      }
      const known = await repo.findRefreshToken(trx, digest);
      if (known?.used_at) return { reusedBy: known.user_id };
      return {};
    });
    if (outcome.reusedBy) await repo.deleteSessionsOfUser(this.db, outcome.reusedBy);
    if (!outcome.pair) throw unauthorized("Invalid refresh token");
    return outcome.pair;
  }

  /** Ends the caller's session and the session of the given refresh token, if it is theirs. */
  async logout(userId: string, sessionId: string | undefined, refreshToken: string | undefined) {
    if (sessionId) await repo.deleteSession(this.db, userId, sessionId);
    if (refreshToken) {
      const row = await repo.findRefreshToken(this.db, sha256Hex(refreshToken));
      if (row?.user_id === userId) await repo.deleteSession(this.db, userId, row.session_id);
    }
  }

  /** `GET /auth/me`: the user, their provider links and their subscription summary. */
  getMe(userId: string) {
    return this.me.get(userId, () => [tag.user(userId)], () => this.readMe(userId));
  }

  private async readMe(userId: string) {
    const user = await repo.findUserById(this.db, userId);
    if (!user) throw unauthorized();
    const [oauthAccounts, subscription] = await Promise.all([
      this.linksOf(userId),
      this.subscriptionOf(userId),
    ]);
    return { ...toUser(user), oauthAccounts, subscription };
  }

  /**
   * `PUT /auth/me`. Changing a password requires the current one (when the user has one) and
   * ends every other session in the same transaction, so a stolen session's access and refresh
   * tokens cannot outlive a password change (docs/decisions.md).
   */
  async updateMe(
    userId: string,
    sessionId: string,
    input: { username?: string; password?: string; currentPassword?: string },
    client: ClientInfo,
  ) {
    const user = await repo.findUserById(this.db, userId);
    if (!user) throw unauthorized();
    const changes: { username?: string; password_hash?: string } = {};
    if (input.password !== undefined) {
      if (user.password_hash) {
        if (input.currentPassword === undefined) {
          throw badRequest("currentPassword is required to change the password");
        }
        const current = input.currentPassword, hash = user.password_hash;
        const ok = await this.limiter.guard(
          accountKey(user, ""),
          client.ip,
          () => verifyPassword(current, hash),
        );
        if (!ok) throw unauthorized("Current password is incorrect");
      }
      changes.password_hash = await hashPassword(input.password);
    }
    if (input.username !== undefined) changes.username = input.username.trim();
    if (!changes.username && !changes.password_hash) return toUser(user);
    try {
      return await this.db.transaction().execute(async (trx) => {
        // Re-checked under the row lock: a take-over or another password change that committed
        // while the hashes were computed wins, and this request changes nothing.
        const locked = await repo.lockUser(trx, userId);
        if (
          !locked || locked.password_hash !== user.password_hash ||
          !(await repo.sessionExists(trx, sessionId, userId))
        ) throw unauthorized();
        const updated = await repo.updateUser(trx, userId, changes);
        if (!updated) throw unauthorized();
        if (changes.password_hash) await repo.deleteSessionsOfUser(trx, userId, sessionId);
        return toUser(updated);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict("Username is already taken");
      throw error;
    }
  }

  /** A user row by id, or undefined (provider sign-in). */
  findUser(id: string) {
    return repo.findUserById(this.db, id);
  }

  /** A user row by email, case-insensitively, or undefined (provider sign-in links it). */
  findUserByEmail(email: string) {
    return repo.findUserByEmail(this.db, email);
  }

  /**
   * Locks the user row FOR UPDATE in the caller's transaction and returns it (provider sign-in
   * links into the account and may take it over under this lock).
   */
  lockUser(trx: Trx, id: string) {
    return repo.lockUser(trx, id);
  }

  /**
   * CONTRACT.md "Identity providers": the verified owner of the email takes the account, so
   * every session ends (none kept) and the password is cleared, in the caller's transaction.
   */
  async endSessionsAndClearPassword(trx: Trx, userId: string) {
    await repo.deleteSessionsOfUser(trx, userId);
    await repo.clearPassword(trx, userId);
  }

  /** The caller's sessions. */
  async listSessions(userId: string) {
    return (await repo.listSessions(this.db, userId)).map(toSession);
  }

  /** Ends one of the caller's sessions; another user's session is 404 (SPEC 5.8). */
  async deleteSession(userId: string, sessionId: string) {
    if ((await repo.deleteSession(this.db, userId, sessionId)) === 0) {
      throw access.missing(SESSION);
    }
  }
}
