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

/** Signs and verifies access tokens with one secret and lifetime. */
export class AccessTokens {
  // Imported once: jose would otherwise import raw key bytes on every sign and verify.
  readonly #key: Promise<CryptoKey>;
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
    try {
      const { payload } = await jwtVerify(token, await this.#key, {
        algorithms: ["HS256"],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ["exp", "sub", "sid"],
      });
      if (typeof payload.sid !== "string" || !Number.isFinite(payload.exp)) return null;
      return { userId: payload.sub!, sessionId: payload.sid, expiresAt: payload.exp! };
    } catch (error) {
      if (error instanceof errors.JOSEError) return null;
      throw error;
    }
  }
}
