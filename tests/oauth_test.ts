/**
 * SPEC 4.2 and CONTRACT.md "Identity providers": Google and Apple sign-in against a local
 * identity provider (JWKS, token and revoke endpoints, its own signed id tokens): the redirect
 * flows, the state bound to the browser, the client redirects, id-token checks and native
 * sign-in. Linking and account take-over are in oauth_linking_test.ts.
 */
import { decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase64urlNoPadding, encodeHexLowerCase } from "@oslojs/encoding";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import type { Client } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import type { TestServer } from "./helpers/server.ts";
import { startFakeIdp } from "./helpers/fake_idp.ts";
import {
  APPLE_WEB_ID,
  appleCallback,
  BUNDLE_ID,
  cookieAttributes,
  fragmentOf,
  GOOGLE_ID,
  googleCallback,
  googleCode,
  googleSignIn,
  googleSignInReply,
  oauthEnv,
  raw,
  start,
  unique,
  WEB_CALLBACK,
} from "./helpers/oauth.ts";

const google = await startFakeIdp("google");
const apple = await startFakeIdp("apple");
const suite = serverSuite("oauth", await oauthEnv(google, apple));

const me = async (api: Client, token: string) =>
  expectStatus(await api.get("/auth/me", { token }), 200);

const linkOf = (server: TestServer, provider: string, subject: string) =>
  server.app.services.db.selectFrom("oauth_accounts").selectAll()
    .where("provider", "=", provider).where("provider_user_id", "=", subject)
    .executeTakeFirst();

const userByEmail = (server: TestServer, email: string) =>
  server.app.services.db.selectFrom("users").selectAll().where("email", "=", email)
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
    assertEquals(params.get("client_id"), GOOGLE_ID);
    assertEquals(params.get("response_type"), "code");
    assertEquals(params.get("redirect_uri"), `${server.url}/auth/oauth/google/callback`);
    assert.match(params.get("scope")!, /openid/);
    assert.match(params.get("scope")!, /email/);
    assertEquals(params.get("code_challenge_method"), "S256");
    assert.ok(params.get("state")!.length >= 32);
    assert.ok(params.get("nonce"));
    assert.ok(params.get("code_challenge"));
  },
);

suite.test(
  "start sets the HttpOnly browser-binding cookie: Lax for Google, None; Secure for Apple",
  async (_api, server) => {
    const g = await start(server, "google", "web");
    assert.match(g.cookie, /^dds_oauth_google=[A-Za-z0-9_-]{43}$/);
    const ga = cookieAttributes(g.setCookie);
    assertEquals(
      [ga.path, ga["max-age"], "httponly" in ga, ga.samesite, "secure" in ga],
      ["/auth/oauth/", "600", true, "Lax", false], // http://: a Secure cookie would not return
    );
    const a = await start(server, "apple", "web");
    assert.match(a.cookie, /^dds_oauth_apple=[A-Za-z0-9_-]{43}$/);
    const aa = cookieAttributes(a.setCookie);
    // Apple's form_post is a cross-site POST: only SameSite=None (with Secure) reaches it.
    assertEquals(
      [aa.path, aa["max-age"], "httponly" in aa, aa.samesite, "secure" in aa],
      ["/auth/oauth/", "600", true, "None", true],
    );
    // Each start binds a new value: the cookie is not a fixed browser id.
    const again = await start(server, "google", "web");
    assert.notEqual(again.cookie, g.cookie);
    // The state row keeps the digest of the binding, never the binding itself.
    const row = await server.app.services.db.selectFrom("oauth_states").selectAll()
      .where("state_digest", "=", sha256Hex(g.params.get("state")!)).executeTakeFirstOrThrow();
    assertEquals(row.browser_digest, sha256Hex(g.cookie.split("=")[1]));
  },
);

function sha256Hex(text: string) {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(text)));
}

suite.test(
  "login CSRF: a callback without the starting browser's cookie is 400, creates no session " +
    "and leaves the state to its browser",
  async (api, server) => {
    // The attacker starts a sign-in in their own browser and gets a code for their account.
    const attacker = await start(server, "google", "web");
    const sub = unique("g-csrf-");
    const email = `${unique("attacker")}@gmail.test`;
    const code = googleCode(google, attacker, { sub, email });
    const query = { code, state: attacker.params.get("state")! };
    // The victim's browser is sent to the callback: no cookie at all.
    const bare = await googleCallback(server, query);
    assertEquals(bare.status, 400);
    assert.match(bare.headers.get("content-type") ?? "", /json/);
    assertEquals(JSON.parse(bare.text), { error: "Sign-in was not started in this browser" });
    assertEquals(bare.location, null);
    // The victim's browser holds the cookie of its own sign-in: not the attacker's state's.
    const victim = await start(server, "google", "web");
    const crossed = await googleCallback(server, query, victim.cookie);
    assertEquals(crossed.status, 400);
    assertEquals(JSON.parse(crossed.text), { error: "Invalid or expired state" });
    // A forged binding value is no better.
    const forged = await googleCallback(server, query, `dds_oauth_google=${"A".repeat(43)}`);
    assertEquals(forged.status, 400);
    // The Apple cookie does not stand in for the Google one.
    const appleStarted = await start(server, "apple", "web");
    const wrongName = await googleCallback(server, query, appleStarted.cookie);
    assertEquals(wrongName.status, 400);
    assertEquals(await linkOf(server, "google", sub), undefined);
    assertEquals(await userByEmail(server, email), undefined);
    // The refusals did not burn the state: the browser that started it completes, and the
    // callback clears the cookie.
    const own = await googleCallback(server, query, attacker.cookie);
    assertEquals(own.status, 302, own.text);
    const tokens = fragmentOf(own.location!, WEB_CALLBACK);
    assertEquals((await me(api, tokens.accessToken)).email, email);
    assertEquals(own.cookies.length, 1);
    assert.match(own.cookies[0], /^dds_oauth_google=;/);
    assertEquals(cookieAttributes(own.cookies[0])["max-age"], "0");
    assertEquals(cookieAttributes(own.cookies[0]).path, "/auth/oauth/");
    // Among several cookies of that name (one planted for a longer path), the right one counts.
    const second = await start(server, "google", "web");
    const code2 = googleCode(google, second, { sub, email });
    const both = await googleCallback(
      server,
      { code: code2, state: second.params.get("state")! },
      `dds_oauth_google=${"B".repeat(43)}; other=1; ${second.cookie}`,
    );
    assertEquals(both.status, 302, both.text);
  },
);

suite.test(
  "a browser following the redirects (cookie jar) ends on the web callback with tokens",
  async (api, server) => {
    const email = `${unique("browser")}@gmail.test`;
    google.consent = { sub: unique("g-browser-"), email, email_verified: true };
    const jar = new Map<string, string>();
    let url = `${server.url}/auth/oauth/google?client=web`;
    let location = "";
    try {
      for (let hop = 0; hop < 5 && !location; hop++) {
        const target = new URL(url);
        const sameOrigin = target.origin === server.url;
        // The service's own replies are checked against its document; the provider's are not.
        const res = await (sameOrigin ? fetchChecked : fetch)(url, {
          redirect: "manual",
          headers: sameOrigin && jar.size
            ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") }
            : {},
        });
        await res.body?.cancel();
        for (const c of sameOrigin ? res.headers.getSetCookie() : []) {
          const [pair] = c.split(";");
          const [k, v] = pair.split("=");
          if (v) jar.set(k, v);
          else jar.delete(k);
        }
        assertEquals(res.status, 302);
        const next = res.headers.get("location")!;
        if (next.startsWith(WEB_CALLBACK)) location = next;
        else url = next;
      }
    } finally {
      google.consent = null;
    }
    const tokens = fragmentOf(location, WEB_CALLBACK);
    assertEquals((await me(api, tokens.accessToken)).email, email);
    assertEquals(jar.size, 0); // the callback cleared the cookie
  },
);

suite.test("a missing or unknown client is 400", async (api) => {
  for (
    const path of [
      "/auth/oauth/google",
      "/auth/oauth/google?client=tv",
      "/auth/oauth/apple",
      "/auth/oauth/google?client=__proto__",
      "/auth/oauth/google?client=https%3A%2F%2Fevil.test",
    ]
  ) {
    expectError(await api.get(path), 400, /client/);
  }
});

suite.test(
  "no open redirect: the client redirect comes from the state's client, never the request",
  async (_api, server) => {
    const evil = "https://evil.test/steal";
    const started = await start(
      server,
      "google",
      "desktop",
      `&redirect_uri=${encodeURIComponent(evil)}&redirect=${encodeURIComponent(evil)}`,
    );
    assertEquals(
      started.params.get("redirect_uri"),
      `${server.url}/auth/oauth/google/callback`,
    );
    const code = googleCode(google, started, {
      sub: unique("g-or-"),
      email: `${unique("openredirect")}@gmail.test`,
    });
    const reply = await googleCallback(server, {
      code,
      state: started.params.get("state")!,
      redirect_uri: evil,
      client: "web",
      return_to: evil,
    }, started.cookie);
    assertEquals(reply.status, 302);
    assert.ok(fragmentOf(reply.location!, "dds-desktop://auth/callback").accessToken);
  },
);

suite.test(
  "google: a new email makes a new account with a derived username",
  async (api, server) => {
    const local = unique("newgoogle");
    const sub = unique("g-sub-");
    const before = google.tokenRequests.length;
    const tokens = await googleSignIn(server, google, { sub, email: `${local}@gmail.test` });
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
    const again = await googleSignIn(server, google, { sub, email: `${local}@gmail.test` });
    const second = await me(api, again.accessToken);
    assertEquals(second.id, user.id);
    assertEquals(second.oauthAccounts.length, 1);
  },
);

suite.test(
  "desktop and ios clients get their own redirect, tokens in the fragment",
  async (api, server) => {
    const desktop = await googleSignIn(
      server,
      google,
      { sub: unique("g-d-"), email: `${unique("desk")}@gmail.test` },
      "desktop",
      "dds-desktop://auth/callback",
    );
    expectStatus(await api.get("/auth/me", { token: desktop.accessToken }), 200);
    const ios = await googleSignIn(
      server,
      google,
      { sub: unique("g-i-"), email: `${unique("ios")}@gmail.test` },
      "ios",
      "dds-ios://auth/callback",
    );
    expectStatus(await api.get("/auth/me", { token: ios.accessToken }), 200);
  },
);

suite.test("a bad, missing, expired or replayed state is rejected", async (_api, server) => {
  const started = await start(server, "google", "web");
  const claims = { sub: unique("g-r-"), email: `${unique("replay")}@gmail.test` };
  const code = googleCode(google, started, claims);
  const state = started.params.get("state")!;
  assertEquals((await googleCallback(server, { code, state }, started.cookie)).status, 302);
  const replay = await googleCallback(server, { code, state }, started.cookie);
  assertEquals(replay.status, 400);
  assertEquals(Object.keys(JSON.parse(replay.text)), ["error"]);
  const other = await start(server, "google", "web");
  assertEquals((await googleCallback(server, { code, state: "nope" }, other.cookie)).status, 400);
  assertEquals((await googleCallback(server, { code }, other.cookie)).status, 400);
  // Past its ten minutes a state is refused, with its own browser's cookie too.
  await server.app.services.db.updateTable("oauth_states")
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where("state_digest", "=", sha256Hex(other.params.get("state")!)).execute();
  const expired = await googleCallback(
    server,
    { code: googleCode(google, other, claims), state: other.params.get("state")! },
    other.cookie,
  );
  assertEquals(expired.status, 400);
  // A Google state is not an Apple state, even with both cookies.
  const g = await start(server, "google", "web");
  const a = await start(server, "apple", "web");
  const cross = await appleCallback(
    server,
    { code: "x", state: g.params.get("state")! },
    `${a.cookie}; ${g.cookie.replace("dds_oauth_google", "dds_oauth_apple")}`,
  );
  assertEquals(cross.status, 400);
});

suite.test(
  "google: a token with a bad signature, nonce, issuer or audience signs nobody in",
  async (_api, server) => {
    const variants = [
      { foreign: true },
      { nonce: "someone-elses-nonce" },
      { nonce: undefined },
      { iss: "https://accounts.google.com" }, // not the configured issuer
      { aud: "another-client" },
      // OpenID Connect Core 3.1.3.7: several audiences need azp naming us; a foreign azp is
      // a token issued to another client.
      { aud: [GOOGLE_ID, "another-client"] },
      { aud: [GOOGLE_ID, "another-client"], azp: "another-client" },
      { azp: "another-client" },
    ];
    for (const variant of variants) {
      const started = await start(server, "google", "web");
      const { foreign, ...overrides } = variant as { foreign?: boolean };
      const code = google.issueCode({
        claims: {
          sub: unique("g-bad-"),
          email: `${unique("bad")}@gmail.test`,
          email_verified: true,
          nonce: started.params.get("nonce")!,
          ...overrides,
        },
        challenge: started.params.get("code_challenge")!,
        foreign,
      });
      const reply = await googleCallback(
        server,
        { code, state: started.params.get("state")! },
        started.cookie,
      );
      assertEquals(reply.status, 302, JSON.stringify(variant));
      const fragment = fragmentOf(reply.location!, WEB_CALLBACK);
      assertEquals(fragment.error, "invalid_token", JSON.stringify(variant));
      assertEquals(fragment.accessToken, undefined);
    }
    // Several audiences with azp naming us is a token for us.
    const ok = await googleSignInReply(server, google, {
      sub: unique("g-azp-"),
      email: `${unique("azp")}@gmail.test`,
      aud: [GOOGLE_ID, "another-client"],
      azp: GOOGLE_ID,
    });
    assert.ok(fragmentOf(ok.location!, WEB_CALLBACK).accessToken);
  },
);

suite.test(
  "the provider's error comes back as one of our codes, never echoed",
  async (_api, server) => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ error: "access_denied" }, "access_denied"],
      [
        { error: "<script>alert(1)</script>", error_description: "click evil.test" },
        "server_error",
      ],
      [{ error: "temporarily_unavailable", code: "ignored" }, "server_error"],
      [{ error: "" }, "server_error"],
      [{}, "invalid_request"], // neither code nor error
    ];
    for (const [query, expected] of cases) {
      const started = await start(server, "google", "ios");
      const reply = await googleCallback(
        server,
        { ...query, state: started.params.get("state")! },
        started.cookie,
      );
      assertEquals(reply.status, 302);
      const fragment = fragmentOf(reply.location!, "dds-ios://auth/callback");
      assertEquals(Object.keys(fragment).sort(), ["error", "error_description"]);
      assertEquals(fragment.error, expected, JSON.stringify(query));
      assert.doesNotMatch(fragment.error_description, /evil|script/);
    }
    // Apple's cancel (form_post) is the person declining.
    const a = await start(server, "apple", "web");
    const cancelled = await appleCallback(
      server,
      { error: "user_cancelled_authorize", state: a.params.get("state")! },
      a.cookie,
    );
    assertEquals(fragmentOf(cancelled.location!, WEB_CALLBACK).error, "access_denied");
  },
);

suite.test(
  "apple web: form_post callback, the name only on first authorization",
  async (api, server) => {
    const started = await start(server, "apple", "web");
    assertEquals(`${started.url.origin}${started.url.pathname}`, apple.overrides.authUrl);
    assertEquals(started.params.get("response_mode"), "form_post");
    assertEquals(started.params.get("client_id"), APPLE_WEB_ID);
    const sub = unique("a-web-");
    const email = `${unique("appleweb")}@privaterelay.appleid.test`;
    const before = apple.tokenRequests.length;
    const code = apple.issueCode({
      claims: { sub, email, email_verified: "true", nonce: started.params.get("nonce")! },
      refreshToken: "apple-web-refresh",
    });
    const reply = await appleCallback(server, {
      code,
      state: started.params.get("state")!,
      user: JSON.stringify({ name: { firstName: "Ada", lastName: "Lovelace" }, email }),
    }, started.cookie);
    assertEquals(reply.status, 302, reply.text);
    const tokens = fragmentOf(reply.location!, WEB_CALLBACK);
    const user = await me(api, tokens.accessToken);
    assertEquals(user.oauthAccounts[0].provider, "apple");
    assert.match(reply.cookies[0], /^dds_oauth_apple=;.*Max-Age=0/);
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
    // Later sign-ins carry no name; the stored one stays. Apple may send a boolean now.
    const next = await start(server, "apple", "web");
    const code2 = apple.issueCode({
      claims: { sub, email, email_verified: true, nonce: next.params.get("nonce")! },
    });
    const second = await appleCallback(
      server,
      { code: code2, state: next.params.get("state")! },
      next.cookie,
    );
    assertEquals(second.status, 302);
    assertEquals(
      (await me(api, fragmentOf(second.location!, WEB_CALLBACK).accessToken)).id,
      user.id,
    );
    link = await linkOf(server, "apple", sub);
    assertEquals(link?.display_name, "Ada Lovelace");
    // Apple's callback takes a form, nothing else.
    const third = await start(server, "apple", "web");
    const json = await raw(server, "/auth/oauth/apple/callback", {
      method: "POST",
      headers: { "content-type": "application/json", cookie: third.cookie },
      body: "{}",
    });
    assertEquals(json.status, 400);
  },
);

suite.test(
  "apple web: a form_post without the cookie, or with a missing or forged state, is 400",
  async (_api, server) => {
    const started = await start(server, "apple", "web");
    const sub = unique("a-csrf-");
    const email = `${unique("applecsrf")}@icloud.test`;
    const code = apple.issueCode({
      claims: { sub, email, email_verified: "true", nonce: started.params.get("nonce")! },
    });
    const state = started.params.get("state")!;
    const noCookie = await appleCallback(server, { code, state });
    assertEquals(noCookie.status, 400);
    assertEquals(JSON.parse(noCookie.text), { error: "Sign-in was not started in this browser" });
    // Refused before the body is read: even a body that is not a form.
    const notForm = await raw(server, "/auth/oauth/apple/callback", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assertEquals(JSON.parse(notForm.text), { error: "Sign-in was not started in this browser" });
    assertEquals((await appleCallback(server, { code }, started.cookie)).status, 400);
    assertEquals(
      (await appleCallback(
        server,
        { code, state: encodeBase64urlNoPadding(new Uint8Array(32)) },
        started.cookie,
      ))
        .status,
      400,
    );
    assertEquals(await linkOf(server, "apple", sub), undefined);
    // The state was not burnt by those: its browser completes.
    const ok = await appleCallback(server, { code, state }, started.cookie);
    assertEquals(ok.status, 302, ok.text);
    assert.ok(fragmentOf(ok.location!, WEB_CALLBACK).accessToken);
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
    const hashed = sha256Hex("raw-2");
    expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: { identityToken: await appleToken({ sub, nonce: hashed }), nonce: "raw-2" },
      }),
      200,
    );
  },
);

suite.test(
  "apple native: bad signature, audience, issuer, expiry, algorithm and nonce are 401",
  async (api) => {
    const email = `${unique("reject")}@icloud.test`;
    const sub = unique("a-x-");
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub, email, email_verified: "true", aud: BUNDLE_ID, iat: now, exp: now + 600 };
    const b64 = (v: unknown) =>
      encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(v)));
    const cases = [
      await appleToken({ sub, email }, { foreign: true }),
      await appleToken({ sub, email, aud: "com.someone.else" }),
      await apple.sign({ sub, email, aud: BUNDLE_ID, exp: now - 3600 }),
      await google.sign({ sub, email, aud: BUNDLE_ID }),
      await appleToken({ sub, email, aud: [BUNDLE_ID, "com.someone.else"] }),
      // Unsigned (`alg: none`) and shared-secret tokens: the algorithm is pinned.
      `${b64({ alg: "none" })}.${b64({ ...claims, iss: apple.issuer })}.`,
      await new SignJWT({ ...claims, iss: apple.issuer }).setProtectedHeader({ alg: "HS256" })
        .sign(new TextEncoder().encode("a-shared-secret-of-32-bytes-long!")),
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
  },
);

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
      await api.post("/auth/oauth/apple/callback", {
        raw: "code=x&state=y",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      await api.post("/auth/oauth/apple/native", { body: { identityToken: "x.y.z" } }),
    ]
  ) {
    expectError(reply, 501, /not configured/);
  }
});

bare.end();
