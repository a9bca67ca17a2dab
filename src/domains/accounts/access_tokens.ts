/** User access tokens: HS256 JWTs bound to a session (`sid`), verified with a pinned algorithm. */
import { errors, jwtVerify, SignJWT } from "jose";

/** The verified claims the service relies on. */
export interface AccessClaims {
  userId: string;
  sessionId: string;
  /** Expiry in Unix seconds. */
  expiresAt: number;
}

const ISSUER = "dds";
const AUDIENCE = "dds:user";
/** How many verified tokens `verify` remembers (a few MB at most). */
const VERIFIED_MAX = 10_000;
/**
 * A compact JWS's shape (three base64url parts, bounded): anything else is refused before jose,
 * whose refusal is an error with a captured stack (a refused bearer's largest cost).
 */
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const MAX_TOKEN_LENGTH = 4096;

/** A verified token's claims with the time bounds that are checked again on every use. */
interface Verified {
  claims: AccessClaims;
  nbf?: number;
}

/** Signs and verifies access tokens with one secret and lifetime. */
export class AccessTokens {
  // Imported once: jose would otherwise import raw key bytes on every sign and verify.
  readonly #key: Promise<CryptoKey>;
  /**
   * Tokens whose signature and fixed claims were verified: that part of the check is a pure
   * function of the token and the secret, so it is remembered (issue 13: the HMAC was the largest
   * cost of an authenticated request). The time bounds (`exp`, `nbf`) are checked on every use,
   * exactly as jose checks them; whether the session still lives is not decided here.
   */
  readonly #verified = new Map<string, Verified>();
  constructor(secret: string, readonly ttlSeconds: number) {
    this.#key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }

  /** A fresh token for a session, valid for the configured lifetime. */
  async sign(userId: string, sessionId: string): Promise<string> {
    return await new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.ttlSeconds)
      .sign(await this.#key);
  }

  /** The claims of a valid token, or null for anything else (bad signature, expired, alg none). */
  async verify(token: string): Promise<AccessClaims | null> {
    const known = this.#verified.get(token);
    if (known) {
      // jose: expired when `exp <= now`, not yet valid when `nbf > now` (no clock tolerance).
      const now = Math.floor(Date.now() / 1000);
      if (known.claims.expiresAt <= now || (known.nbf !== undefined && known.nbf > now)) {
        return null;
      }
      return known.claims;
    }
    if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) return null;
    try {
      const { payload } = await jwtVerify(token, await this.#key, {
        algorithms: ["HS256"],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ["exp", "sub", "sid"],
      });
      if (typeof payload.sid !== "string" || !Number.isFinite(payload.exp)) return null;
      const claims = { userId: payload.sub!, sessionId: payload.sid, expiresAt: payload.exp! };
      if (this.#verified.size >= VERIFIED_MAX) this.#verified.clear();
      this.#verified.set(token, { claims, nbf: payload.nbf });
      return claims;
    } catch (error) {
      if (error instanceof errors.JOSEError) return null;
      throw error;
    }
  }
}
