/** SPEC 4.1, 5.1-5.3: accounts, sessions and refresh-token rotation over HTTP. */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";

const suite = serverSuite("accounts");

suite.test("register returns 201 with a token pair and the user", async (api) => {
  const reply = await api.post("/auth/register", {
    body: { email: "Reg.One@Example.com", username: "reg_one", password: "password123" },
  });
  const body = expectStatus(reply, 201);
  assert.equal(typeof body.accessToken, "string");
  assert.equal(typeof body.refreshToken, "string");
  assertEquals(Object.keys(body.user).sort(), [
    "createdAt",
    "email",
    "id",
    "updatedAt",
    "username",
  ]);
  assert.equal(body.user.username, "reg_one");
  assert.ok(reply.headers.get("x-request-id"));
});

suite.test("register rejects missing and invalid fields with 400", async (api) => {
  expectError(await api.post("/auth/register", { body: {} }), 400);
  expectError(
    await api.post("/auth/register", {
      body: { email: "not-an-email", username: "valid_name", password: "password123" },
    }),
    400,
    /email/,
  );
  expectError(
    await api.post("/auth/register", {
      body: { email: "short@example.com", username: "shorty", password: "1234567" },
    }),
    400,
    /password/,
  );
  // Four emoji are four characters (eight UTF-16 units): still too short.
  expectError(
    await api.post("/auth/register", {
      body: { email: "emoji@example.com", username: "emoji", password: "\u{1F600}".repeat(4) },
    }),
    400,
    /password/,
  );
  expectError(
    await api.post("/auth/register", {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    }),
    400,
  );
});

suite.test("register answers 409 for a taken email or username, whatever the case", async (api) => {
  const user = await registerUser(api);
  expectError(
    await api.post("/auth/register", {
      body: {
        email: user.user.email.toUpperCase(),
        username: "someone_else",
        password: "password123",
      },
    }),
    409,
    /email/i,
  );
  expectError(
    await api.post("/auth/register", {
      body: {
        email: "other@example.com",
        username: user.user.username.toUpperCase(),
        password: "password123",
      },
    }),
    409,
    /username/i,
  );
});

suite.test("login works by email and by username; bad credentials are 401", async (api) => {
  const user = await registerUser(api);
  for (const identifier of [user.user.email, user.user.username]) {
    const body = expectStatus(
      await api.post("/auth/login", { body: { identifier, password: user.password } }),
      200,
    );
    assert.equal(body.user.id, user.user.id);
  }
  expectError(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: "wrong password" },
    }),
    401,
  );
  expectError(
    await api.post("/auth/login", {
      body: { identifier: "nobody@example.com", password: "whatever1" },
    }),
    401,
  );
  expectError(await api.post("/auth/login", { body: { identifier: user.user.email } }), 400);
  // Over-long values are present and wrong: invalid credentials, not a malformed body.
  for (
    const body of [
      { identifier: "x".repeat(300), password: user.password },
      { identifier: user.user.email, password: "p".repeat(2000) },
    ]
  ) expectError(await api.post("/auth/login", { body }), 401);
});

suite.test("refresh rotates: the new pair works, the old refresh token is single use", async (api) => {
  const user = await registerUser(api);
  const first = expectStatus(
    await api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }),
    200,
  );
  assertEquals(Object.keys(first).sort(), ["accessToken", "refreshToken"]);
  assert.notEqual(first.refreshToken, user.refreshToken);
  expectStatus(await api.get("/auth/me", { token: first.accessToken }), 200);
  const second = expectStatus(
    await api.post("/auth/refresh", { body: { refreshToken: first.refreshToken } }),
    200,
  );
  assert.ok(second.refreshToken);
});

suite.test("reusing a used refresh token revokes every session of the user", async (api) => {
  const user = await registerUser(api);
  const other = expectStatus(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: user.password },
    }),
    200,
  );
  const rotated = expectStatus(
    await api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }),
    200,
  );
  expectError(await api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }), 401);
  // Both the rotated family and the other login are gone.
  expectError(
    await api.post("/auth/refresh", { body: { refreshToken: rotated.refreshToken } }),
    401,
  );
  expectError(await api.post("/auth/refresh", { body: { refreshToken: other.refreshToken } }), 401);
  expectError(await api.get("/auth/me", { token: other.accessToken }), 401);
});

suite.test("two concurrent refreshes with the same token: exactly one succeeds", async (api) => {
  const user = await registerUser(api);
  const replies = await Promise.all(
    Array.from(
      { length: 5 },
      () => api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }),
    ),
  );
  assertEquals(replies.map((r) => r.status).filter((s) => s === 200).length, 1);
  for (const r of replies.filter((r) => r.status !== 200)) expectError(r, 401);
});

suite.test("refresh with an unknown token is 401", async (api) => {
  expectError(await api.post("/auth/refresh", { body: { refreshToken: "rt_nonsense" } }), 401);
  expectError(await api.post("/auth/refresh", { body: {} }), 400);
  // An empty or over-long token is an invalid token: 401, the only error SPEC 4.1 lists.
  expectError(await api.post("/auth/refresh", { body: { refreshToken: "" } }), 401);
  expectError(await api.post("/auth/refresh", { body: { refreshToken: "r".repeat(600) } }), 401);
});

suite.test("logout revokes the refresh token and the session's access token", async (api) => {
  const user = await registerUser(api);
  const reply = await api.post("/auth/logout", {
    token: user.accessToken,
    body: { refreshToken: user.refreshToken },
  });
  assert.equal(typeof expectStatus(reply, 200).message, "string");
  expectError(await api.post("/auth/refresh", { body: { refreshToken: user.refreshToken } }), 401);
  expectError(await api.get("/auth/me", { token: user.accessToken }), 401);
  expectError(await api.post("/auth/logout", { body: { refreshToken: user.refreshToken } }), 401);
});

suite.test("me needs a valid token and carries oauthAccounts and a null subscription", async (api) => {
  const user = await registerUser(api);
  const me = expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
  assertEquals(me.oauthAccounts, []);
  assert.equal(me.subscription, null);
  assert.equal(me.email, user.user.email);
  expectError(await api.get("/auth/me"), 401);
  expectError(await api.get("/auth/me", { token: "garbage" }), 401);
  expectError(await api.get("/auth/me", { token: user.accessToken.slice(0, -2) + "xx" }), 401);
  // Not a compact JWS (refused before jose), or one over the length bound: the same 401.
  for (
    const token of [
      "a.b.c",
      `${user.accessToken}.x`,
      user.accessToken.replace(".", ".."),
      `${user.accessToken}${"A".repeat(4096)}`,
    ]
  ) {
    expectError(await api.get("/auth/me", { token }), 401);
  }
});

suite.test("PUT me changes the username; 409 when taken; 400 when invalid", async (api) => {
  const a = await registerUser(api);
  const b = await registerUser(api);
  const renamed = `${a.user.username}_x`;
  const body = expectStatus(
    await api.put("/auth/me", { token: a.accessToken, body: { username: renamed } }),
    200,
  );
  assert.equal(body.username, renamed);
  expectError(
    await api.put("/auth/me", { token: a.accessToken, body: { username: b.user.username } }),
    409,
  );
  expectError(await api.put("/auth/me", { token: a.accessToken, body: { username: "x" } }), 400);
  expectError(await api.put("/auth/me", { body: { username: "nobody_here" } }), 401);
});

suite.test("PUT me password change needs the current password and ends other sessions", async (api) => {
  const user = await registerUser(api);
  const other = expectStatus(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: user.password },
    }),
    200,
  );
  expectError(
    await api.put("/auth/me", { token: user.accessToken, body: { password: "new password 1" } }),
    400,
    /currentPassword/,
  );
  expectError(
    await api.put("/auth/me", {
      token: user.accessToken,
      body: { password: "short", currentPassword: user.password },
    }),
    400,
  );
  expectError(
    await api.put("/auth/me", {
      token: user.accessToken,
      body: { password: "new password 1", currentPassword: "wrong one!" },
    }),
    401,
  );
  expectError(
    await api.put("/auth/me", {
      token: user.accessToken,
      body: { password: "new password 1", currentPassword: "w".repeat(2000) },
    }),
    401,
  );
  expectStatus(
    await api.put("/auth/me", {
      token: user.accessToken,
      body: { password: "new password 1", currentPassword: user.password },
    }),
    200,
  );
  expectStatus(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: "new password 1" },
    }),
    200,
  );
  expectError(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: user.password },
    }),
    401,
  );
  expectError(await api.get("/auth/me", { token: other.accessToken }), 401);
  expectStatus(await api.get("/auth/me", { token: user.accessToken }), 200);
});

suite.test("sessions list records user agent and ip; delete ends one at once", async (api) => {
  const user = await registerUser(api);
  const second = expectStatus(
    await api.post("/auth/login", {
      body: { identifier: user.user.email, password: user.password },
      headers: { "user-agent": "TestAgent/2" },
    }),
    200,
  );
  const sessions = expectStatus(await api.get("/auth/sessions", { token: user.accessToken }), 200);
  assert.equal(sessions.length, 2);
  for (const s of sessions) {
    assertEquals(Object.keys(s).sort(), ["createdAt", "id", "ip", "lastUsedAt", "userAgent"]);
    assert.equal(s.ip, "127.0.0.1");
  }
  const target = sessions.find((s: { userAgent: string }) => s.userAgent === "TestAgent/2");
  assert.ok(target);
  expectStatus(await api.delete(`/auth/sessions/${target.id}`, { token: user.accessToken }), 200);
  expectError(
    await api.post("/auth/refresh", { body: { refreshToken: second.refreshToken } }),
    401,
  );
  expectError(await api.get("/auth/me", { token: second.accessToken }), 401);
  expectError(await api.delete(`/auth/sessions/${target.id}`, { token: user.accessToken }), 404);
});

suite.test("another user's session is 404, and so is a malformed id", async (api) => {
  const a = await registerUser(api);
  const b = await registerUser(api);
  const [bSession] = expectStatus(await api.get("/auth/sessions", { token: b.accessToken }), 200);
  expectError(await api.delete(`/auth/sessions/${bSession.id}`, { token: a.accessToken }), 404);
  expectError(await api.delete(`/auth/sessions/not-a-uuid`, { token: a.accessToken }), 404);
  expectStatus(await api.get("/auth/me", { token: b.accessToken }), 200);
});

suite.end();
