/**
 * The two identity providers (CONTRACT.md "Identity providers"): their endpoints, overridable
 * through OAUTH_ISSUER_OVERRIDES so tests run a local provider, and id-token verification.
 */
import { createRemoteJWKSet, importPKCS8, type JWTPayload, jwtVerify, SignJWT } from "jose";
import type { Config } from "../../config.ts";
import { unauthorized } from "../../errors.ts";

export type ProviderName = "google" | "apple";

export interface ProviderEndpoints {
  authUrl: string;
  tokenUrl: string;
  jwksUrl: string;
  /** Accepted `iss` values. */
  issuers: string[];
  revokeUrl: string;
}

const DEFAULTS: Record<ProviderName, ProviderEndpoints> = {
  google: {
    authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    jwksUrl: "https://www.googleapis.com/oauth2/v3/certs",
    // Google documents both forms of its issuer.
    issuers: ["https://accounts.google.com", "accounts.google.com"],
    revokeUrl: "https://oauth2.googleapis.com/revoke",
  },
  apple: {
    authUrl: "https://appleid.apple.com/auth/authorize",
    tokenUrl: "https://appleid.apple.com/auth/token",
    jwksUrl: "https://appleid.apple.com/auth/keys",
    issuers: ["https://appleid.apple.com"],
    revokeUrl: "https://appleid.apple.com/auth/revoke",
  },
};

/** The endpoints of a provider after applying the configured overrides. */
export function endpointsOf(config: Config, provider: ProviderName): ProviderEndpoints {
  const base = DEFAULTS[provider];
  const o = config.oauthIssuerOverrides[provider] ?? {};
  return {
    authUrl: o.authUrl ?? base.authUrl,
    tokenUrl: o.tokenUrl ?? base.tokenUrl,
    jwksUrl: o.jwksUrl ?? base.jwksUrl,
    issuers: o.issuer ? [o.issuer] : base.issuers,
    revokeUrl: o.revokeUrl ?? base.revokeUrl,
  };
}

/** Claims the service reads from an id token. */
export interface IdentityClaims extends JWTPayload {
  sub: string;
  email?: string;
  email_verified?: boolean | string;
  nonce?: string;
  name?: string;
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/** Remote key sets, one per URL, cached (jose refetches on an unknown `kid`). */
const keySets = new Map<string, KeySet>();

function keySetOf(url: string): KeySet {
  let set = keySets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 10_000 });
    keySets.set(url, set);
  }
  return set;
}

/**
 * Verifies an id token against the provider's published keys: signature (RS256/ES256 only, so
 * never `none` or a shared-secret algorithm), issuer, audience, expiry and a string subject.
 * Any failure is one 401.
 */
export async function verifyIdToken(
  token: string,
  endpoints: ProviderEndpoints,
  audience: string,
): Promise<IdentityClaims> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySetOf(endpoints.jwksUrl), {
      issuer: endpoints.issuers,
      audience,
      algorithms: ["RS256", "ES256"],
      clockTolerance: 30,
      requiredClaims: ["sub", "exp", "iat"],
    }));
  } catch {
    throw unauthorized("Identity token is invalid");
  }
  if (!authorizedPartyOk(payload, audience)) {
    throw unauthorized("Identity token was issued to another client");
  }
  if (typeof payload.sub !== "string" || payload.sub === "" || payload.sub.length > 255) {
    throw unauthorized("Identity token is invalid");
  }
  return payload as IdentityClaims;
}

/**
 * OpenID Connect Core 3.1.3.7: a token with several audiences must name us as its authorized
 * party (`azp`), and an `azp` naming another client means the token was issued to that client.
 */
export function authorizedPartyOk(payload: JWTPayload, clientId: string): boolean {
  const azp = payload.azp;
  if (azp !== undefined) return azp === clientId;
  return !Array.isArray(payload.aud) || payload.aud.length <= 1;
}

/**
 * CONTRACT.md: only an email the provider marks verified counts. Google sends a boolean; Apple
 * sends the string "true"/"false" (older tokens) or a boolean. Missing is not verified.
 */
export function emailVerified(claims: IdentityClaims): boolean {
  return claims.email_verified === true || claims.email_verified === "true";
}

/**
 * Apple's client secret: an ES256 JWT signed with the team's key, valid five minutes
 * (Apple allows up to six months; short-lived keeps a leaked one harmless).
 */
export async function appleClientSecret(config: Config, clientId: string): Promise<string> {
  const { teamId, keyId, privateKey } = config.apple;
  if (!teamId || !keyId || !privateKey) {
    throw new Error("APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY are needed");
  }
  // A PEM in an environment variable often arrives with literal "\n".
  const key = await importPKCS8(privateKey.replace(/\\n/g, "\n"), "ES256");
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: keyId })
    .setIssuer(teamId)
    .setSubject(clientId)
    .setAudience("https://appleid.apple.com")
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(key);
}

/** POSTs a form to a provider endpoint and returns the JSON answer; throws on non-2xx. */
export async function postForm(url: string, form: Record<string, string>) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${new URL(url).pathname} answered ${res.status}`);
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}
