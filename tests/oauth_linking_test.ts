/**
 * CONTRACT.md "Identity providers", linking: only a verified provider email signs in or links,
 * and a verified email linking into an account that has a password takes the account over
 * (other sessions and PATs revoked, password cleared), since registration never verifies email.
 */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import type { TestServer } from "./helpers/server.ts";
import { startFakeIdp } from "./helpers/fake_idp.ts";
import {
  appleCallback,
  BUNDLE_ID,
  fragmentOf,
  googleCallback,
  googleCode,
  googleSignIn,
  googleSignInReply,
  oauthEnv,
  start,
  unique,
  WEB_CALLBACK,
} from "./helpers/oauth.ts";

const google = await startFakeIdp("google");
const apple = await startFakeIdp("apple");
const suite = serverSuite("oauth linking", await oauthEnv(google, apple));

const linksOf = (server: TestServer, userId: string) =>
  server.app.services.db.selectFrom("oauth_accounts").selectAll()
    .where("user_id", "=", userId).execute();

const userByEmail = (server: TestServer, email: string) =>
  server.app.services.db.selectFrom("users").selectAll().where("email", "=", email)
    .executeTakeFirst();

/** An Apple identity token as the app receives it. */
function appleToken(claims: Record<string, unknown>) {
  return apple.sign({ aud: BUNDLE_ID, email_verified: "true", ...claims });
}

const login = (api: Client, identifier: string, password: string) =>
  api.post("/auth/login", { body: { identifier, password } });

/** A password account with a second session and a PAT: what a squatter would hold. */
async function squatter(api: Client) {
  const account = await registerUser(api, "squat");
  const second = expectStatus(await login(api, account.user.email, account.password), 200);
  const pat = expectStatus(
    await api.post("/api/personal-access-tokens", {
      token: account.accessToken,
      body: { name: "kept?" },
    }),
    201,
  );
  expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 200);
  return { ...account, second, pat: pat.token as string };
}

/** Asserts the squatter's every credential is dead. */
async function assertLockedOut(api: Client, held: Awaited<ReturnType<typeof squatter>>) {
  expectError(await api.get("/auth/me", { token: held.accessToken }), 401);
  expectError(await api.get("/auth/me", { token: held.second.accessToken }), 401);
  expectError(
    await api.post("/auth/refresh", { body: { refreshToken: held.refreshToken } }),
    401,
  );
  expectError(
    await api.post("/auth/refresh", { body: { refreshToken: held.second.refreshToken } }),
    401,
  );
  expectStatus(await api.get("/api/sdk/v1/me", { token: held.pat }), 401);
  expectError(await login(api, held.user.email, held.password), 401);
}

suite.test(
  'google: an email that is not verified (missing, false, "false") never signs in or links',
  async (api, server) => {
    const existing = await registerUser(api, "unverified");
    for (const verified of [undefined, false, "false", "yes"]) {
      const sub = unique("g-unv-");
      const reply = await googleSignInReply(server, google, {
        sub,
        email: existing.user.email,
        email_verified: verified,
      });
      assertEquals(reply.status, 302);
      const fragment = fragmentOf(reply.location!, WEB_CALLBACK);
      assertEquals(fragment.error, "access_denied", String(verified));
      assertEquals(fragment.accessToken, undefined);
    }
    // Nothing linked, nothing taken: the account and its session are as they were.
    assertEquals((await linksOf(server, existing.user.id)).length, 0);
    expectStatus(await api.get("/auth/me", { token: existing.accessToken }), 200);
    expectStatus(await login(api, existing.user.email, existing.password), 200);
    // A new email with no verification makes no account either.
    const fresh = `${unique("unverifiednew")}@gmail.test`;
    const reply = await googleSignInReply(server, google, {
      sub: unique("g-unv-"),
      email: fresh,
      email_verified: undefined,
    });
    assertEquals(fragmentOf(reply.location!, WEB_CALLBACK).error, "access_denied");
    assertEquals(await userByEmail(server, fresh), undefined);
  },
);

suite.test(
  "a linked subject whose email is no longer verified is not signed in",
  async (_api, server) => {
    const sub = unique("g-was-");
    const email = `${unique("wasverified")}@gmail.test`;
    assert.ok((await googleSignIn(server, google, { sub, email })).accessToken);
    const reply = await googleSignInReply(server, google, { sub, email, email_verified: false });
    const fragment = fragmentOf(reply.location!, WEB_CALLBACK);
    assertEquals([fragment.error, fragment.accessToken], ["access_denied", undefined]);
  },
);

suite.test(
  "apple web: a form_post identity without a verified email is access_denied",
  async (api, server) => {
    const existing = await registerUser(api, "appleunv");
    const started = await start(server, "apple", "web");
    const code = apple.issueCode({
      claims: {
        sub: unique("a-unv-"),
        email: existing.user.email,
        nonce: started.params.get("nonce")!,
      },
    });
    const reply = await appleCallback(
      server,
      { code, state: started.params.get("state")! },
      started.cookie,
    );
    assertEquals(reply.status, 302);
    assertEquals(fragmentOf(reply.location!, WEB_CALLBACK).error, "access_denied");
    assertEquals((await linksOf(server, existing.user.id)).length, 0);
    expectStatus(await login(api, existing.user.email, existing.password), 200);
  },
);

suite.test(
  "apple native: an email that is not verified is 401 and links nothing",
  async (api, server) => {
    const existing = await registerUser(api, "nativeunv");
    for (const verified of [undefined, false, "false"]) {
      expectError(
        await api.post("/auth/oauth/apple/native", {
          body: {
            identityToken: await appleToken({
              sub: unique("a-u-"),
              email: existing.user.email,
              email_verified: verified,
            }),
          },
        }),
        401,
        /not verified/,
      );
    }
    assertEquals((await linksOf(server, existing.user.id)).length, 0);
    expectStatus(await login(api, existing.user.email, existing.password), 200);
    // Apple's boolean and string forms of "verified" both count.
    for (const verified of [true, "true"]) {
      const body = expectStatus(
        await api.post("/auth/oauth/apple/native", {
          body: {
            identityToken: await appleToken({
              sub: unique("a-v-"),
              email: `${unique("nativev")}@icloud.test`,
              email_verified: verified,
            }),
          },
        }),
        200,
      );
      assert.ok(body.accessToken);
    }
  },
);

suite.test(
  "google: a verified email takes over the password account registered with it",
  async (api, server) => {
    const held = await squatter(api);
    const sub = unique("g-owner-");
    // Emails match case-insensitively.
    const tokens = await googleSignIn(server, google, {
      sub,
      email: held.user.email.toUpperCase(),
    });
    const owner = expectStatus(await api.get("/auth/me", { token: tokens.accessToken }), 200);
    assertEquals([owner.id, owner.username], [held.user.id, held.user.username]);
    assertEquals(owner.oauthAccounts.map((a: { provider: string }) => a.provider), ["google"]);
    await assertLockedOut(api, held);
    // Only the owner's new session is left; the PAT is listed as revoked.
    const sessions = expectStatus(
      await api.get("/auth/sessions", { token: tokens.accessToken }),
      200,
    );
    assertEquals(sessions.length, 1);
    const pats = expectStatus(
      await api.get("/api/personal-access-tokens", { token: tokens.accessToken }),
      200,
    );
    assertEquals(pats.length, 1);
    assert.ok(pats[0].revokedAt);
    const row = await userByEmail(server, held.user.email);
    assertEquals(row?.password_hash, null);

    // The owner, now without a password, sets one without currentPassword.
    const mine = "the owner's own password";
    expectStatus(
      await api.put("/auth/me", { token: tokens.accessToken, body: { password: mine } }),
      200,
    );
    expectStatus(await login(api, held.user.email, mine), 200);
    // With a password, changing it needs currentPassword again (SPEC 4.1): 400 without it.
    expectError(
      await api.put("/auth/me", { token: tokens.accessToken, body: { password: "another one!" } }),
      400,
      /currentPassword/,
    );
    // A later sign-in of the linked subject is no take-over: password and sessions stay.
    const again = await googleSignIn(server, google, { sub, email: held.user.email });
    expectStatus(await api.get("/auth/me", { token: again.accessToken }), 200);
    expectStatus(await api.get("/auth/me", { token: tokens.accessToken }), 200);
    expectStatus(await login(api, held.user.email, mine), 200);
  },
);

suite.test(
  "apple native: a verified email takes over the password account registered with it",
  async (api, server) => {
    const held = await squatter(api);
    const body = expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: {
          identityToken: await appleToken({ sub: unique("a-own-"), email: held.user.email }),
        },
      }),
      200,
    );
    assertEquals(body.user.id, held.user.id);
    await assertLockedOut(api, held);
    expectStatus(await api.get("/auth/me", { token: body.accessToken }), 200);
    assertEquals((await userByEmail(server, held.user.email))?.password_hash, null);
  },
);

suite.test(
  "linking into an account without a password takes nothing from it",
  async (api, server) => {
    const email = `${unique("twoproviders")}@icloud.test`;
    const first = expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: { identityToken: await appleToken({ sub: unique("a-two-"), email }) },
      }),
      200,
    );
    const pat = expectStatus(
      await api.post("/api/personal-access-tokens", {
        token: first.accessToken,
        body: { name: "stays" },
      }),
      201,
    );
    const tokens = await googleSignIn(server, google, { sub: unique("g-two-"), email });
    const user = expectStatus(await api.get("/auth/me", { token: tokens.accessToken }), 200);
    assertEquals(user.id, first.user.id);
    assertEquals(user.oauthAccounts.length, 2);
    // The Apple session and the PAT of the same (verified) owner are untouched.
    expectStatus(await api.get("/auth/me", { token: first.accessToken }), 200);
    expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 200);
  },
);

suite.test(
  "a passwordless user sets a password with PUT /auth/me and no currentPassword",
  async (api) => {
    const email = `${unique("nopass")}@icloud.test`;
    const body = expectStatus(
      await api.post("/auth/oauth/apple/native", {
        body: { identityToken: await appleToken({ sub: unique("a-np-"), email }) },
      }),
      200,
    );
    expectError(await login(api, email, "any password at all"), 401);
    expectStatus(
      await api.put("/auth/me", { token: body.accessToken, body: { password: "first password" } }),
      200,
    );
    expectStatus(await login(api, email, "first password"), 200);
  },
);

suite.test(
  "concurrent first sign-ins of one subject into a password account: one link, all sessions live",
  async (api, server) => {
    const held = await squatter(api);
    const sub = unique("g-race-");
    const starts = await Promise.all([0, 1, 2, 3].map(() => start(server, "google", "web")));
    const replies = await Promise.all(starts.map((s) =>
      googleCallback(
        server,
        {
          code: googleCode(google, s, { sub, email: held.user.email }),
          state: s.params.get("state")!,
        },
        s.cookie,
      )
    ));
    const tokens = replies.map((r) => fragmentOf(r.location!, WEB_CALLBACK));
    for (const t of tokens) {
      const me = expectStatus(await api.get("/auth/me", { token: t.accessToken }), 200);
      assertEquals(me.id, held.user.id);
    }
    assertEquals((await linksOf(server, held.user.id)).length, 1);
    await assertLockedOut(api, held);
  },
);

suite.test("stops the local identity providers", async () => {
  await google.close();
  await apple.close();
});

suite.end();
