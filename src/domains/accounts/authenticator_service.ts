/**
 * Turns a bearer credential into a caller: a user access token (JWT bound to a live session) or
 * a PAT. `require` is the one authentication check of every user endpoint, tRPC procedures and
 * raw routes alike: no route verifies a credential its own way.
 */
import type { Db } from "../../schema.ts";
import type { Authenticate, Caller, CallerKind, RequireOptions } from "../../caller.ts";
import { forbidden, unauthorized } from "../../errors.ts";
import type { AccessTokens } from "./access_tokens.ts";
import * as repo from "./repository.ts";
import { tag } from "../../infra/db/cache/announced.ts";
import { ChangeFeed } from "../../infra/db/cache/feed.ts";
import type { TaggedCache } from "../../infra/db/cache/tagged_cache.ts";

/** A live session as `findActiveSession` finds it. */
type ActiveSession = { id: string; last_used_at: Date; user_id: string } | undefined;

/** SPEC 5.2: renew when under 24 hours remain. */
const RENEW_WITHIN_SECONDS = 24 * 3600;
/** A session's lastUsedAt is refreshed at most this often by plain API calls. */
const SESSION_TOUCH_MS = 5 * 60 * 1000;

/** Why a credential was refused: a bad one, or a valid token whose user has been deleted. */
export type AuthFailure = "invalid" | "user_gone";

/** What a credential of the wrong kind is told (403; docs/decisions.md). */
const WRONG_KIND: Record<CallerKind, string> = {
  pat: "Personal access tokens cannot be used here",
  user: "This endpoint accepts personal access tokens only",
};

/**
 * Which credential a refused caller should have sent (issue 34): said the same way whatever was
 * wrong with the one sent, so a 401 still gives no reason (SPEC 5.5).
 */
export function expectedCredential(kinds: readonly CallerKind[]): string {
  const names = kinds.map((k) => k === "user" ? "a user access token" : "a personal access token");
  return `Expected ${names.join(" or ")} in Authorization: Bearer`;
}

/**
 * The check of personal access tokens (the pats domain's service): which bearers are PATs, and
 * whose a valid one is. An interface here, so accounts does not import pats (pats reads the
 * owner's state through accounts' repository, and domains import each other one way only).
 */
export interface PatVerifier {
  looksLikePat(bearer: string): boolean;
  verify(token: string): Promise<{ userId: string; patId: string } | null>;
}

/** What `Authenticator` is built from (one object, like every domain's service). */
export interface AuthenticatorDeps {
  db: Db;
  tokens: AccessTokens;
  pats: PatVerifier;
  /** Invalidation of the session cache; without it nothing is cached. */
  changes?: ChangeFeed;
}

export class Authenticator implements Authenticate {
  /**
   * Live sessions by id, dropped when the session or its user changes (logout, deletion, refresh
   * reuse, password change, disabling; src/infra/db/cache/feed.ts). A missing one is not remembered.
   */
  private readonly sessions: TaggedCache<ActiveSession>;

  private readonly db: Db;
  private readonly tokens: AccessTokens;
  private readonly pats: PatVerifier;

  constructor(deps: AuthenticatorDeps) {
    this.db = deps.db;
    this.tokens = deps.tokens;
    this.pats = deps.pats;
    this.sessions = (deps.changes ?? ChangeFeed.disabled()).cache();
  }

  /** `Authenticate.require`: the one check (CONTRACT.md "Who may call what"). */
  async require(
    bearer: string | null,
    kinds: readonly CallerKind[],
    options: RequireOptions = {},
  ): Promise<Caller> {
    if (!bearer) throw unauthorized(`Missing bearer token: ${expectedCredential(kinds)}`);
    const result = await this.authenticate(bearer);
    if ("failure" in result) {
      throw result.failure === "user_gone" && options.userGone
        ? options.userGone()
        : unauthorized(`Unauthorized: ${expectedCredential(kinds)}`);
    }
    if (!kinds.includes(result.kind)) throw forbidden(WRONG_KIND[result.kind]);
    return result;
  }

  /** The caller behind a bearer credential, or why there is none. */
  async authenticate(bearer: string): Promise<Caller | { failure: AuthFailure }> {
    if (this.pats.looksLikePat(bearer)) {
      const pat = await this.pats.verify(bearer);
      return pat ? { kind: "pat", ...pat } : { failure: "invalid" };
    }
    const claims = await this.tokens.verify(bearer);
    if (!claims) return { failure: "invalid" };
    // Logout, session deletion, refresh reuse, password change and account deletion end the
    // session, and with it every access token issued for it.
    const found = await this.sessions.get(
      claims.sessionId,
      (s) => s ? [tag.session(s.id), tag.user(s.user_id)] : null,
      async () => {
        const row = await repo.findActiveSession(this.db, claims.sessionId, claims.userId);
        return row && { ...row, user_id: claims.userId };
      },
    );
    // A session is cached under the user it was found for; a token naming another is refused.
    const session = found?.user_id === claims.userId ? found : undefined;
    if (!session) {
      // Only on the refusal path: a deleted user's sessions went with it (ON DELETE CASCADE).
      const user = await repo.findUserById(this.db, claims.userId);
      return { failure: user ? "invalid" : "user_gone" };
    }
    if (Date.now() - session.last_used_at.getTime() > SESSION_TOUCH_MS) {
      await repo.touchSession(this.db, session.id);
      // The touch is announced too, but this process need not read the old time meanwhile.
      this.sessions.delete(session.id);
    }
    return { kind: "user", ...claims };
  }

  /** SPEC 5.2: a fresh token when a user token has under 24 hours left; PATs never renew. */
  async renewal(caller: Caller): Promise<string | null> {
    if (caller.kind !== "user") return null;
    if (caller.expiresAt - Date.now() / 1000 >= RENEW_WITHIN_SECONDS) return null;
    return await this.tokens.sign(caller.userId, caller.sessionId);
  }
}
