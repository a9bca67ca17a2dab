/**
 * A local identity provider for the Google and Apple flows: a JWKS endpoint, a token endpoint
 * that redeems codes the test registered (checking PKCE when a challenge was given), a revoke
 * endpoint, id tokens signed with its own key (or a stranger's, for the 401 cases), and an
 * authorize endpoint that consents at once as `consent`, so a browser (or a test following the
 * redirects with a cookie jar) can run the whole flow.
 */
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";

export interface IssuedCode {
  claims: JWTPayload;
  /** PKCE S256 challenge the token request's `code_verifier` must match. */
  challenge?: string;
  refreshToken?: string;
  /** Sign the id token with a key the JWKS does not publish. */
  foreign?: boolean;
}

export interface FakeIdp {
  url: string;
  issuer: string;
  /** OAUTH_ISSUER_OVERRIDES entry for this provider. */
  overrides: Record<string, string>;
  /** Every token and revoke request, decoded. */
  tokenRequests: Array<Record<string, string>>;
  revoked: Array<Record<string, string>>;
  /** When set, the revoke endpoint answers this status. */
  failRevoke: number | null;
  /**
   * Who `GET /authorize` signs in (the request's nonce is added); null answers 400. It
   * redirects to `redirect_uri` with `code` and `state`, or with `response_mode=form_post`
   * answers a page that posts them there, as Apple does.
   */
  consent: JWTPayload | null;
  /** Registers a one-time code the token endpoint will redeem. */
  issueCode(code: IssuedCode): string;
  /** Signs an id token with the provider's key (or a foreign key with `foreign: true`). */
  sign(claims: JWTPayload, options?: { foreign?: boolean; expiresIn?: number }): Promise<string>;
  close(): Promise<void>;
}

let seq = 0;

/** Starts a provider on an ephemeral port. */
export async function startFakeIdp(name: string): Promise<FakeIdp> {
  const own = await generateKeyPair("RS256", { extractable: true });
  const foreign = await generateKeyPair("RS256", { extractable: true });
  const kid = `${name}-key-1`;
  const jwk = { ...(await exportJWK(own.publicKey)), kid, alg: "RS256", use: "sig" };
  const codes = new Map<string, IssuedCode>();
  const tokenRequests: Array<Record<string, string>> = [];
  const revoked: Array<Record<string, string>> = [];
  let issuer = "";

  async function sign(
    claims: JWTPayload,
    options: { foreign?: boolean; expiresIn?: number } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const key = options.foreign ? foreign.privateKey : own.privateKey;
    return await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "RS256", kid })
      .setIssuer(typeof claims.iss === "string" ? claims.iss : issuer)
      .setIssuedAt(now)
      .setExpirationTime(claims.exp ?? now + (options.expiresIn ?? 600))
      .sign(key);
  }

  const idp: FakeIdp = {
    url: "",
    issuer: "",
    overrides: {},
    tokenRequests,
    revoked,
    failRevoke: null,
    consent: null,
    issueCode(code) {
      const value = `code-${name}-${seq++}-${crypto.randomUUID()}`;
      codes.set(value, code);
      return value;
    },
    sign,
    close: () => server.shutdown(),
  };

  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method === "GET" && url.pathname === "/jwks") return Response.json({ keys: [jwk] });
    if (req.method === "GET" && url.pathname === "/authorize") return authorize(url.searchParams);
    if (req.method === "POST" && url.pathname === "/token") {
      const form = Object.fromEntries(new URLSearchParams(await req.text()));
      tokenRequests.push(form);
      const issued = codes.get(form.code);
      codes.delete(form.code);
      if (!issued || !form.client_id || !form.client_secret) {
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      }
      if (issued.challenge) {
        const computed = encodeBase64urlNoPadding(
          sha256(new TextEncoder().encode(form.code_verifier ?? "")),
        );
        if (computed !== issued.challenge) {
          return Response.json({ error: "invalid_grant" }, { status: 400 });
        }
      }
      const idToken = await sign({ aud: form.client_id, ...issued.claims }, {
        foreign: issued.foreign,
      });
      return Response.json({
        access_token: `at-${crypto.randomUUID()}`,
        token_type: "Bearer",
        expires_in: 3600,
        id_token: idToken,
        ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
      });
    }
    if (req.method === "POST" && url.pathname === "/revoke") {
      const form = Object.fromEntries(new URLSearchParams(await req.text()));
      if (idp.failRevoke) return new Response("{}", { status: idp.failRevoke });
      revoked.push(form);
      return new Response(null, { status: 200 });
    }
    return new Response("not found", { status: 404 });
  });
  function authorize(q: URLSearchParams): Response {
    const redirectUri = q.get("redirect_uri");
    if (!idp.consent || !redirectUri || !q.get("state")) {
      return Response.json({ error: "invalid_request" }, { status: 400 });
    }
    const code = idp.issueCode({
      claims: { ...idp.consent, ...(q.get("nonce") ? { nonce: q.get("nonce")! } : {}) },
      challenge: q.get("code_challenge") ?? undefined,
    });
    const reply = { code, state: q.get("state")! };
    if (q.get("response_mode") === "form_post") {
      const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const inputs = Object.entries(reply)
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v)}">`).join("");
      return new Response(
        `<!doctype html><body onload="document.forms[0].submit()"><form method="post" ` +
          `action="${esc(redirectUri)}">${inputs}</form></body>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    }
    const target = new URL(redirectUri);
    for (const [k, v] of Object.entries(reply)) target.searchParams.set(k, v);
    return new Response(null, { status: 302, headers: { location: target.toString() } });
  }

  idp.url = `http://127.0.0.1:${server.addr.port}`;
  issuer = `${idp.url}/${name}`;
  idp.issuer = issuer;
  idp.overrides = {
    authUrl: `${idp.url}/authorize`,
    tokenUrl: `${idp.url}/token`,
    jwksUrl: `${idp.url}/jwks`,
    revokeUrl: `${idp.url}/revoke`,
    issuer,
  };
  return idp;
}

/** A PKCS#8 PEM of a fresh P-256 key: what APPLE_PRIVATE_KEY holds. */
export async function applePrivateKeyPem(): Promise<string> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const b64 = btoa(String.fromCharCode(...der)).replace(/(.{64})/g, "$1\n");
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----`;
}
