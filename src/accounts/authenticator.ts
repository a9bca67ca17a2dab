/**
 * Turns a bearer credential into a caller: a user access token (JWT bound to a live session) or
 * a PAT. Anything else is null, which the HTTP layer answers with one 401.
 */
import type { Db } from "../schema.ts";
import type { Caller } from "../services.ts";
import { looksLikePat, type PatsService } from "../pats/service.ts";
import type { AccessTokens } from "./access_tokens.ts";
import * as repo from "./repository.ts";

/** SPEC 5.2: renew when under 24 hours remain. */
const RENEW_WITHIN_SECONDS = 24 * 3600;
/** A session's lastUsedAt is refreshed at most this often by plain API calls. */
const SESSION_TOUCH_MS = 5 * 60 * 1000;

export class Authenticator {
  constructor(
    private readonly db: Db,
    private readonly tokens: AccessTokens,
    private readonly pats: PatsService,
  ) {}

  /** The caller behind a bearer credential, or null. */
  async authenticate(bearer: string): Promise<Caller | null> {
    if (looksLikePat(bearer)) {
      const pat = await this.pats.verify(bearer);
      return pat && { kind: "pat", ...pat };
    }
    const claims = await this.tokens.verify(bearer);
    if (!claims) return null;
    // Logout, session deletion, refresh reuse and account deletion end the session, and with
    // it every access token issued for it.
    const session = await repo.findActiveSession(this.db, claims.sessionId, claims.userId);
    if (!session) return null;
    if (Date.now() - session.last_used_at.getTime() > SESSION_TOUCH_MS) {
      await repo.touchSession(this.db, session.id);
    }
    return { kind: "user", ...claims };
  }

  /** Verifies only the signature and expiry (account deletion must tell 404 from 401). */
  verifySignatureOnly(bearer: string) {
    return looksLikePat(bearer) ? Promise.resolve(null) : this.tokens.verify(bearer);
  }

  /** SPEC 5.2: a fresh token when a user token has under 24 hours left; PATs never renew. */
  async renewal(caller: Caller): Promise<string | null> {
    if (caller.kind !== "user") return null;
    if (caller.expiresAt - Date.now() / 1000 >= RENEW_WITHIN_SECONDS) return null;
    return await this.tokens.sign(caller.userId, caller.sessionId);
  }
}
