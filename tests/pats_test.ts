/** SPEC 2.6, 4.3, 5.4, 5.5: personal access tokens and the two versioned surfaces. */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";

const suite = serverSuite("pats");

async function createPat(
  api: Client,
  token: string,
  body: Record<string, unknown> = { name: "script" },
) {
  return expectStatus(await api.post("/api/personal-access-tokens", { token, body }), 201);
}

suite.test("create answers 201 with the token once; the list never shows it", async (api) => {
  const user = await registerUser(api);
  const created = await createPat(api, user.accessToken, { name: "ci script" });
  assert.match(created.token, /^pat_[0-9A-Za-z]{40}$/);
  assert.equal(created.prefix, created.token.slice(0, 10));
  assert.equal(created.lastFour, created.token.slice(-4));
  assert.equal(created.name, "ci script");
  assert.equal(created.lastUsedAt, null);
  assert.equal(created.expiresAt, null);
  assert.equal(created.revokedAt, null);
  const list = expectStatus(
    await api.get("/api/personal-access-tokens", { token: user.accessToken }),
    200,
  );
  assert.equal(list.length, 1);
  assert.equal(list[0].id, created.id);
  assert.equal("token" in list[0], false);
  assertEquals(Object.keys(list[0]).sort(), [
    "createdAt",
    "expiresAt",
    "id",
    "lastFour",
    "lastUsedAt",
    "name",
    "prefix",
    "revokedAt",
  ]);
});

suite.test("name must be 1-100 characters and expiresAt in the future", async (api) => {
  const user = await registerUser(api);
  const post = (body: unknown) =>
    api.post("/api/personal-access-tokens", { token: user.accessToken, body });
  expectError(await post({ name: "" }), 400);
  expectError(await post({}), 400);
  expectError(await post({ name: "x".repeat(101) }), 400);
  expectStatus(await post({ name: "x".repeat(100) }), 201);
  // Characters, not UTF-16 units: 100 emoji are 100 characters.
  expectStatus(await post({ name: "\u{1F600}".repeat(100) }), 201);
  expectError(await post({ name: "\u{1F600}".repeat(101) }), 400);
  expectError(
    await post({ name: "old", expiresAt: new Date(Date.now() - 60_000).toISOString() }),
    400,
    /future/,
  );
  expectError(await post({ name: "bad", expiresAt: "tomorrow" }), 400);
  const future = new Date(Date.now() + 86_400_000).toISOString();
  assert.equal(expectStatus(await post({ name: "ok", expiresAt: future }), 201).expiresAt, future);
});

suite.test("PAT management refuses PATs with 403 and anonymous callers with 401", async (api) => {
  const user = await registerUser(api);
  const pat = await createPat(api, user.accessToken);
  expectError(await api.get("/api/personal-access-tokens", { token: pat.token }), 403);
  expectError(
    await api.post("/api/personal-access-tokens", { token: pat.token, body: { name: "x" } }),
    403,
  );
  expectError(await api.delete(`/api/personal-access-tokens/${pat.id}`, { token: pat.token }), 403);
  expectError(await api.get("/api/personal-access-tokens"), 401);
});

suite.test("the SDK surface accepts PATs only; the app surface user tokens only", async (api) => {
  const user = await registerUser(api);
  const pat = await createPat(api, user.accessToken);
  const viaPat = expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 200);
  assert.equal(viaPat.id, user.user.id);
  assert.equal(
    (await api.get("/api/sdk/v1/me", { token: pat.token })).headers.get("x-renewed-token"),
    null,
  );
  const wrong = await api.get("/api/sdk/v1/me", { token: user.accessToken });
  const body = expectStatus(wrong, 403);
  assertEquals(Object.keys(body.error).sort(), ["code", "message", "requestId"]);
  assert.equal(body.error.requestId, wrong.headers.get("x-request-id"));
  expectStatus(await api.get("/api/app/v1/me", { token: user.accessToken }), 200);
  assert.equal(
    expectStatus(await api.get("/api/app/v1/me", { token: pat.token }), 403).error.code,
    "forbidden",
  );
  // PATs are no session credential either.
  expectError(await api.get("/auth/me", { token: pat.token }), 403);
});

suite.test("every bad PAT gets the same 401 on the SDK surface", async (api) => {
  const user = await registerUser(api);
  const revoked = await createPat(api, user.accessToken, { name: "revoked" });
  expectStatus(
    await api.delete(`/api/personal-access-tokens/${revoked.id}`, { token: user.accessToken }),
    204,
  );
  const expiring = await createPat(api, user.accessToken, {
    name: "expiring",
    expiresAt: new Date(Date.now() + 1500).toISOString(),
  });
  expectStatus(await api.get("/api/sdk/v1/me", { token: expiring.token }), 200);
  await new Promise((r) => setTimeout(r, 1700));
  const good = await createPat(api, user.accessToken);
  const tampered = good.token.slice(0, -1) + (good.token.endsWith("a") ? "b" : "a");
  const bodies = [];
  for (
    const token of [revoked.token, expiring.token, tampered, "pat_short", "pat_" + "!".repeat(40)]
  ) {
    const reply = await api.get("/api/sdk/v1/me", { token });
    const body = expectStatus(reply, 401);
    bodies.push({ code: body.error.code, message: body.error.message });
  }
  assert.equal(new Set(bodies.map((b) => JSON.stringify(b))).size, 1, JSON.stringify(bodies));
});

suite.test("revocation is immediate and DELETE is idempotent; bad ids are 400", async (api) => {
  const user = await registerUser(api);
  const pat = await createPat(api, user.accessToken);
  expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 200);
  const first = await api.delete(`/api/personal-access-tokens/${pat.id}`, {
    token: user.accessToken,
  });
  assert.equal(first.status, 204);
  assert.equal(first.body, null);
  assert.equal(
    (await api.delete(`/api/personal-access-tokens/${pat.id}`, { token: user.accessToken })).status,
    204,
  );
  expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 401);
  const [listed] = expectStatus(
    await api.get("/api/personal-access-tokens", { token: user.accessToken }),
    200,
  );
  assert.ok(listed.revokedAt);
  expectError(
    await api.delete("/api/personal-access-tokens/not-a-uuid", { token: user.accessToken }),
    400,
  );
  // A percent-encoded path names the same token (RFC 3986: %2D is "-").
  const encoded = await createPat(api, user.accessToken);
  expectStatus(await api.get("/api/sdk/v1/me", { token: encoded.token }), 200);
  assert.equal(
    (await api.delete(`/api/personal-access-tokens/${encoded.id.replaceAll("-", "%2D")}`, {
      token: user.accessToken,
    })).status,
    204,
  );
  expectStatus(await api.get("/api/sdk/v1/me", { token: encoded.token }), 401);
});

suite.test("another user's PAT id, or an unknown one, is 404 and changes nothing", async (api) => {
  const a = await registerUser(api);
  const b = await registerUser(api);
  const pat = await createPat(api, b.accessToken);
  // SPEC 5.8, CONTRACT.md: another user's PAT is 404, also on DELETE.
  expectError(
    await api.delete(`/api/personal-access-tokens/${pat.id}`, { token: a.accessToken }),
    404,
  );
  expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 200);
  const [listed] = expectStatus(
    await api.get("/api/personal-access-tokens", { token: b.accessToken }),
    200,
  );
  assert.equal(listed.revokedAt, null);
  expectError(
    await api.delete("/api/personal-access-tokens/01a20190-0000-7000-8000-000000000000", {
      token: a.accessToken,
    }),
    404,
  );
  // Its owner still revokes it, and again (idempotent), while the other user stays at 404.
  for (let i = 0; i < 2; i++) {
    expectStatus(
      await api.delete(`/api/personal-access-tokens/${pat.id}`, { token: b.accessToken }),
      204,
    );
  }
  expectError(
    await api.delete(`/api/personal-access-tokens/${pat.id}`, { token: a.accessToken }),
    404,
  );
});

suite.test("revoking again keeps the first revokedAt", async (api) => {
  const user = await registerUser(api);
  const pat = await createPat(api, user.accessToken);
  const del = () =>
    api.delete(`/api/personal-access-tokens/${pat.id}`, { token: user.accessToken });
  expectStatus(await del(), 204);
  const [first] = expectStatus(
    await api.get("/api/personal-access-tokens", { token: user.accessToken }),
    200,
  );
  await new Promise((r) => setTimeout(r, 20));
  expectStatus(await del(), 204);
  const [second] = expectStatus(
    await api.get("/api/personal-access-tokens", { token: user.accessToken }),
    200,
  );
  assert.ok(first.revokedAt);
  assert.equal(second.revokedAt, first.revokedAt);
});

suite.test("lastUsedAt is written on use, then at most once per 5 minutes", async (api) => {
  const user = await registerUser(api);
  const pat = await createPat(api, user.accessToken);
  expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 200);
  const [afterFirst] = expectStatus(
    await api.get("/api/personal-access-tokens", { token: user.accessToken }),
    200,
  );
  assert.ok(afterFirst.lastUsedAt);
  await Promise.all(
    Array.from({ length: 5 }, () => api.get("/api/sdk/v1/me", { token: pat.token })),
  );
  const [afterMore] = expectStatus(
    await api.get("/api/personal-access-tokens", { token: user.accessToken }),
    200,
  );
  assert.equal(afterMore.lastUsedAt, afterFirst.lastUsedAt);
});

suite.test("a deleted owner's PAT gets 401", async (api) => {
  const user = await registerUser(api);
  const pat = await createPat(api, user.accessToken);
  expectStatus(
    await api.delete("/auth/account", {
      token: user.accessToken,
      body: { confirm: true, password: user.password },
    }),
    204,
  );
  expectStatus(await api.get("/api/sdk/v1/me", { token: pat.token }), 401);
});

suite.end();
