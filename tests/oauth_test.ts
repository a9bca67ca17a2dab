/**
 * SPEC 4.2 and CONTRACT.md "Identity providers": Google and Apple sign-in against a local
 * identity provider (JWKS, token and revoke endpoints, its own signed id tokens).
 */
import { decodeJwt, decodeProtectedHeader } from "jose";
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import type { TestServer } from "./helpers/server.ts";
import { applePrivateKeyPem, startFakeIdp } from "./helpers/fake_idp.ts";

const google = await startFakeIdp("google");
const apple = await startFakeIdp("apple");
const BUNDLE_ID = "com.example.dds.ios";
const APPLE_WEB_ID = "com.example.dds.web";
const WEB = "http://localhost:3000";

const suite = serverSuite("oauth", {
  GOOGLE_CLIENT_ID: "google-client-id",
  GOOGLE_CLIENT_SECRET: "google-client-secret",
  APPLE_CLIENT_ID: APPLE_WEB_ID,
  APPLE_TEAM_ID: "TEAM123456",
  APPLE_KEY_ID: "KEY1234567",
  APPLE_PRIVATE_KEY: await applePrivateKeyPem(),
  APPLE_BUNDLE_ID: BUNDLE_ID,
  OAUTH_ISSUER_OVERRIDES: JSON.stringify({ google: google.overrides, apple: apple.overrides }),
  WEB_APP_URL: WEB,
});

let seq = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}`;

/** A request that does not follow redirects. */
async function raw(server: TestServer, path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.url}${path}`, { redirect: "manual", ...init });
  const text = await res.text();
  return { status: res.status, location: res.headers.get("location"), text, headers: res.headers };
}

/** Starts a redirect sign-in and returns the provider URL's parameters. */
async function start(server: TestServer, provider: string, client: string) {
  const reply = await raw(server, `/auth/oauth/${provider}?client=${client}`);
  assertEquals(reply.status, 302, reply.text);
  const url = new URL(reply.location!);
  return { url, params: url.searchParams };
}

/** The fragment of a client redirect as a map; asserts nothing leaks into the query. */
function fragmentOf(location: string, prefix: string) {
  assert.ok(location.startsWith(`${prefix}#`), location);
  const [base, fragment] = location.split("#");
  assert.ok(!base.includes("?"), `no query expected: ${location}`);
  return Object.fromEntries(new URLSearchParams(fragment));
}

/** A complete Google sign-in; returns the client redirect's fragment. */
async function googleSignIn(
  server: TestServer,
  claims: Record<string, unknown>,
  client = "web",
  prefix = `${WEB}/auth/callback`,
) {
  const { params } = await start(server, "google", client);
  const code = google.issueCode({
    claims: { nonce: params.get("nonce")!, email_verified: true, ...claims },
    challenge: params.get("code_challenge")!,
  });
  const reply = await raw(
    server,
    `/auth/oauth/google/callback?code=${encodeURIComponent(code)}&state=${params.get("state")}`,
  );
  assertEquals(reply.status, 302, reply.text);
  return fragmentOf(reply.location!, prefix);
}

const me = async (api: Client, token: string) =>
  expectStatus(await api.get("/auth/me", { token }), 200);

const linkOf = (server: TestServer, provider: string, subject: string) =>
  server.app.services.db.selectFrom("oauth_accounts").selectAll()
    .where("provider", "=", provider).where("provider_user_id", "=", subject)
    .executeTakeFirst();

/** An Apple identity token as the app receives it. */
function appleToken(claims: Record<string, unknown>, options?: { foreign?: boolean }) {
  return apple.sign({ aud: BUNDLE_ID, email_verified: "true", ...claims }, options);
}

suite.test(
  "google start: 302 to the consent screen with state, nonce and PKCE",
  async (_api, server) => {
    const { url, params } = await start(server, "google", "web");
    assertEquals(`${url.origin}${url.pathname}`, google.overrides.authUrl);
    assertEquals(params.get("client_id"), "google-client-id");
    assertEquals(params.get("response_type"), "code");
    assert.match(params.get("redirect_uri")!, /\/auth\/oauth\/google\/callback$/);
    assert.match(params.get("scope")!, /openid/);
    assert.match(params.get("scope")!, /email/);
    assertEquals(params.get("code_challenge_method"), "S256");
    assert.ok(params.get("state")!.length >= 32);
    assert.ok(params.get("nonce"));
    assert.ok(params.get("code_challenge"));
  },
);

suite.test("a missing or unknown client is 400", async (api) => {
  for (const path of ["/auth/oauth/google", "/auth/oauth/google?client=tv", "/auth/oauth/apple"]) {
    expectError(await api.get(path), 400, /client/);
  }
});

suite.test(
  "google: a new email makes a new account with a derived username",
  async (api, server) => {
    const local = unique("newgoogle");
    const sub = unique("g-sub-");
    const before = google.tokenRequests.length;
    const tokens = await googleSignIn(server, { sub, email: `${local}@gmail.test` });
    assertEquals(Object.keys(tokens).sort(), ["accessToken", "refreshToken"]);
    const request = google.tokenRequests[before];
    assertEquals(request.client_secret, "google-client-secret");
    assert.ok(request.code_verifier);
    const user = await me(api, tokens.accessToken);
    assertEquals(user.email, `${local}@gmail.test`);
    assert.match(user.username, new RegExp(`^${local}_[a-z0-9]{6}$`));
    assertEquals(user.oauthAccounts.length, 1);
    assertEquals(user.oauthAccounts[0].provider, "google");
    assertEquals(user.oauthAccounts[0].providerUserId, sub);
    assertEquals(user.oauthAccounts[0].email, `${local}@gmail.test`);
    // The refresh token of the fragment is a working session.
    expectStatus(
      await api.post("/auth/refresh", { body: { refreshToken: tokens.refreshToken } }),
      200,
    );
    // Signing in again with the same subject is the same account, one link.
    const again = await googleSignIn(server, { sub, email: `${local}@gmail.test` });
    const second = await me(api, again.accessToken);
    assertEquals(second.id, user.id);
    assertEquals(second.oauthAccounts.length, 1);
  },
);

suite.test("google: an existing email is linked to the existing account", async (api, server) => {
  const existing = await registerUser(api, "linkme");
  const tokens = await googleSignIn(server, {
    sub: unique("g-link-"),
    email: existing.user.email.toUpperCase(),
  });
  const user = await me(api, tokens.accessToken);
  assertEquals(user.id, existing.user.id);
  assertEquals(user.username, existing.user.username);
  assertEquals(user.oauthAccounts.map((a: { provider: string }) => a.provider), ["google"]);
  expectStatus(
    await api.post("/auth/login", {
      body: { identifier: existing.user.email, password: existing.password },
    }),
    200,
  );
});

suite.test(
  "desktop and ios clients get their own redirect, tokens in the fragment",
  async (api, server) => {
    const desktop = await googleSignIn(
      server,
      { sub: unique("g-d-"), email: `${unique("desk")}@gmail.test` },
      "desktop",
      "dds-desktop://auth/callback",
    );
    expectStatus(await api.get("/auth/me", { token: desktop.accessToken }), 200);
    const ios = await googleSignIn(
      server,
      { sub: unique("g-i-"), email: `${unique("ios")}@gmail.test` },
      "ios",
      "dds-ios://auth/callback",
    );
    expectStatus(await api.get("/auth/me", { token: ios.accessToken }), 200);
  },
);

suite.test("a bad, missing or replayed state is rejected", async (_api, server) => {
  const { params } = await start(server, "google", "web");
  const claims = { sub: unique("g-r-"), email: `${unique("replay")}@gmail.test` };
  const code = google.issueCode({
    claims: { ...claims, nonce: params.get("nonce")! },
    challenge: params.get("code_challenge")!,
  });
  const callback = `/auth/oauth/google/callback?code=${code}&state=${params.get("state")}`;
  assertEquals((await raw(server, callback)).status, 302);
  const replay = await raw(server, callback);
  assertEquals(replay.status, 400);
  assertEquals(Object.keys(JSON.parse(replay.text)), ["error"]);
  assertEquals(
    (await raw(server, `/auth/oauth/google/callback?code=${code}&state=nope`)).status,
    400,
  );
  assertEquals((await raw(server, `/auth/oauth/google/callback?code=${code}`)).status, 400);
  // A Google state is not an Apple state.
  const other = await start(server, "google", "web");
  const cross = await raw(server, "/auth/oauth/apple/callback", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ code: "x", state: other.params.get("state")! }),
  });
  assertEquals(cross.status, 400);
});

suite.test(
  "google: a token with a bad signature or nonce signs nobody in",
  async (_api, server) => {
    for (const variant of ["foreign", "nonce"] as const) {
      const { params } = await start(server, "google", "web");
      const code = google.issueCode({
        claims: {
          sub: unique("g-bad-"),
          email: `${unique("bad")}@gmail.test`,
          nonce: variant === "nonce" ? "someone-elses-nonce" : params.get("nonce")!,
        },
        challenge: params.get("code_challenge")!,
        foreign: variant === "foreign",
      });
      const reply = await raw(
        server,
        `/auth/oauth/google/callback?code=${code}&state=${params.get("state")}`,
      );
      assertEquals(reply.status, 302);
      const fragment = fragmentOf(reply.location!, `${WEB}/auth/callback`);
      assertEquals(fragment.error, "invalid_token");
      assertEquals(fragment.accessToken, undefined);
    }
    // The user refusing consent comes back as an error too.
    const { params } = await start(server, "google", "ios");
    const denied = await raw(
      server,
      `/auth/oauth/google/callback?error=access_denied&state=${params.get("state")}`,
    );
    assertEquals(fragmentOf(denied.location!, "dds-ios://auth/callback").error, "access_denied");
  },
);

suite.test(
  "apple web: form_post callback, the name only on first authorization",
  async (api, server) => {
    const { url, params } = await start(server, "apple", "web");
    assertEquals(`${url.origin}${url.pathname}`, apple.overrides.authUrl);
    assertEquals(params.get("response_mode"), "form_post");
    assertEquals(params.get("client_id"), APPLE_WEB_ID);
    const sub = unique("a-web-");
    const email = `${unique("appleweb")}@privaterelay.appleid.test`;
    const before = apple.tokenRequests.length;
    const code = apple.issueCode({
      claims: { sub, email, email_verified: "true", nonce: params.get("nonce")! },
      refreshToken: "apple-web-refresh",
    });
    const form = (state: string, code: string, user?: unknown) =>
      raw(server, "/auth/oauth/apple/callback", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          code,
          state,
          ...(user ? { user: JSON.stringify(user) } : {}),
        }),
      });
    const reply = await form(params.get("state")!, code, {
      name: { firstName: "Ada", lastName: "Lovelace" },
      email,
    });
    assertEquals(reply.status, 302, reply.text);
    const tokens = fragmentOf(reply.location!, `${WEB}/auth/callback`);
    const user = await me(api, tokens.accessToken);
    assertEquals(user.oauthAccounts[0].provider, "apple");
    // Apple's client secret is an ES256 JWT from the team key.
    const secret = apple.tokenRequests[before].client_secret;
    assertEquals(decodeProtectedHeader(secret), { alg: "ES256", kid: "KEY1234567" });
    assertEquals(decodeJwt(secret).iss, "TEAM123456");
    assertEquals(decodeJwt(secret).sub, APPLE_WEB_ID);
    let link = await linkOf(server, "apple", sub);
    assertEquals(
      [link?.display_name, link?.provider_refresh_token, link?.provider_client_id],
      ["Ada Lovelace", "apple-web-refresh", APPLE_WEB_ID],
    );
    // Later sign-ins carry no name; the stored one stays.
    const next = await start(server, "apple", "web");
    const code2 = apple.issueCode({ claims: { sub, email, nonce: next.params.get("nonce")! } });
    const second = await form(next.params.get("state")!, code2);
    assertEquals(second.status, 302);
    assertEquals(
      (await me(api, fragmentOf(second.location!, `${WEB}/auth/callback`).accessToken)).id,
      user.id,
    );
    link = await linkOf(server, "apple", sub);
    assertEquals(link?.display_name, "Ada Lovelace");
    // Apple's callback takes a form, nothing else.
    const json = await raw(server, "/auth/oauth/apple/callback", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assertEquals(json.status, 400);
  },
);

suite.test(
  "apple native: a verified identity token signs in a new account",
  async (api, server) => {
    const sub = unique("a-nat-");
    const local = unique("native");
    const identityToken = await appleToken({
      sub,
      email: `${local}@icloud.test`,
      nonce: "raw-nonce",
    });
    const body = expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: {
          identityToken,
          nonce: "raw-nonce",
          fullName: { givenName: "Grace", familyName: "Hopper" },
        },
      }),
      200,
    );
    assertEquals(Object.keys(body).sort(), ["accessToken", "refreshToken", "user"]);
    assertEquals(body.user.email, `${local}@icloud.test`);
    assert.match(body.user.username, new RegExp(`^${local}_[a-z0-9]{6}$`));
    assertEquals((await me(api, body.accessToken)).oauthAccounts[0].providerUserId, sub);
    assertEquals((await linkOf(server, "apple", sub))?.display_name, "Grace Hopper");
    // Second sign-in: no name supplied, same account, the name kept.
    const again = expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: { identityToken: await appleToken({ sub, email: `${local}@icloud.test` }) },
      }),
      200,
    );
    assertEquals(again.user.id, body.user.id);
    assertEquals((await linkOf(server, "apple", sub))?.display_name, "Grace Hopper");
    // Apps that give Apple the SHA-256 of their nonce send the raw one here.
    const hashed = encodeHexLowerCase(sha256(new TextEncoder().encode("raw-2")));
    expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: { identityToken: await appleToken({ sub, nonce: hashed }), nonce: "raw-2" },
      }),
      200,
    );
  },
);

suite.test("apple native: an existing email is linked", async (api) => {
  const existing = await registerUser(api, "nativelink");
  const body = expectStatus(
    await api.post("/auth/oauth/apple/native", {
      body: {
        identityToken: await appleToken({ sub: unique("a-l-"), email: existing.user.email }),
      },
    }),
    200,
  );
  assertEquals(body.user.id, existing.user.id);
});

suite.test("apple native: bad signature, audience, issuer, expiry and nonce are 401", async (api) => {
  const email = `${unique("reject")}@icloud.test`;
  const sub = unique("a-x-");
  const cases = [
    await appleToken({ sub, email }, { foreign: true }),
    await appleToken({ sub, email, aud: "com.someone.else" }),
    await apple.sign({ sub, email, aud: BUNDLE_ID, exp: Math.floor(Date.now() / 1000) - 3600 }),
    await google.sign({ sub, email, aud: BUNDLE_ID }),
    "not-a-jwt",
  ];
  for (const identityToken of cases) {
    expectError(await api.post("/auth/oauth/apple/native", { body: { identityToken } }), 401);
  }
  expectError(
    await api.post("/auth/oauth/apple/native", {
      body: { identityToken: await appleToken({ sub, email, nonce: "a" }), nonce: "b" },
    }),
    401,
    /nonce/i,
  );
  expectError(
    await api.post("/auth/oauth/apple/native", {
      body: { identityToken: await appleToken({ sub, email }), nonce: "b" },
    }),
    401,
  );
});

suite.test("apple native: a missing identityToken or malformed body is 400", async (api) => {
  for (
    const body of [{}, { identityToken: 42 }, { identityToken: "" }, {
      identityToken: "x",
      fullName: "Ada",
    }]
  ) {
    expectError(await api.post("/auth/oauth/apple/native", { body }), 400);
  }
  expectError(
    await api.post("/auth/oauth/apple/native", {
      raw: "{oops",
      headers: { "content-type": "application/json" },
    }),
    400,
  );
});

suite.test("apple native: an unverified email never links an existing account", async (api) => {
  const existing = await registerUser(api, "unverified");
  expectError(
    await api.post("/auth/oauth/apple/native", {
      body: {
        identityToken: await appleToken({
          sub: unique("a-u-"),
          email: existing.user.email,
          email_verified: "false",
        }),
      },
    }),
    401,
  );
});

suite.test(
  "account deletion revokes the Apple authorization kept from the code exchange",
  async (api, server) => {
    const sub = unique("a-del-");
    const refreshToken = `apple-refresh-${sub}`;
    const code = apple.issueCode({ claims: {}, refreshToken });
    const body = expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: {
          identityToken: await appleToken({ sub, email: `${unique("del")}@icloud.test` }),
          authorizationCode: code,
        },
      }),
      200,
    );
    const link = await linkOf(server, "apple", sub);
    assertEquals([link?.provider_refresh_token, link?.provider_client_id], [
      refreshToken,
      BUNDLE_ID,
    ]);
    // Provider failure: 500, nothing deleted.
    apple.failRevoke = 503;
    try {
      expectError(
        await api.delete("/auth/account", { token: body.accessToken, body: { confirm: true } }),
        500,
      );
    } finally {
      apple.failRevoke = null;
    }
    expectStatus(await api.get("/auth/me", { token: body.accessToken }), 200);
    assertEquals(apple.revoked.some((r) => r.token === refreshToken), false);
    // Provider up: revoked with the client that obtained it, then deleted.
    expectStatus(
      await api.delete("/auth/account", { token: body.accessToken, body: { confirm: true } }),
      204,
    );
    const revocation = apple.revoked.find((r) => r.token === refreshToken);
    assertEquals([revocation?.client_id, revocation?.token_type_hint], [
      BUNDLE_ID,
      "refresh_token",
    ]);
    assertEquals(await linkOf(server, "apple", sub), undefined);
  },
);

suite.test("apple native: a rejected authorization code is 401", async (api) => {
  expectError(
    await api.post("/auth/oauth/apple/native", {
      body: {
        identityToken: await appleToken({
          sub: unique("a-c-"),
          email: `${unique("c")}@icloud.test`,
        }),
        authorizationCode: "never-issued",
      },
    }),
    401,
  );
});

suite.test("stops the local identity providers", async () => {
  await google.close();
  await apple.close();
});

suite.end();

// No provider configured: every provider endpoint answers 501 with the error body.
const bare = serverSuite("oauth unconfigured");

bare.test("unconfigured providers answer 501 with the error body", async (api) => {
  for (
    const reply of [
      await api.get("/auth/oauth/google?client=web"),
      await api.get("/auth/oauth/google/callback?code=x&state=y"),
      await api.get("/auth/oauth/apple?client=ios"),
      await api.post("/auth/oauth/apple/native", { body: { identityToken: "x.y.z" } }),
    ]
  ) {
    expectError(reply, 501, /not configured/);
  }
});

bare.end();
