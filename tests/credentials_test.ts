/**
 * CONTRACT.md "Who may call what", route family by route family: a PAT acts as its user on the
 * unversioned `/api/*` resources (SPEC 5.4) with the same owner checks as a user token, and is
 * refused on PAT management, `/auth/*`, `/api/app/v1` and the factory; user tokens are refused
 * on `/api/sdk/v1` and the factory; factory tokens on every user endpoint; an expired, revoked
 * or foreign credential never does more than its twin.
 */
import { decodeJwt } from "jose";
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { bindRequestOf, factoryEnv, provisionedDevice, tokenOf } from "./helpers/factory.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import type { TestServer } from "./helpers/server.ts";
import { AccessTokens } from "../src/domains/accounts/access_tokens.ts";

const suite = serverSuite("credentials", factoryEnv());

async function patOf(api: Client, token: string, body: Record<string, unknown> = { name: "p" }) {
  return expectStatus(await api.post("/api/personal-access-tokens", { token, body }), 201);
}

/** Every owner endpoint of a device (SPEC 4.5), called with `token`. */
function ownerCalls(api: Client, deviceId: string, pushId: string, token: string) {
  const base = `/api/devices/${deviceId}`;
  return {
    device: () => api.get(base, { token }),
    state: () => api.get(`${base}/state`, { token }),
    nickname: () => api.get(`${base}/nickname`, { token }),
    setNickname: () => api.put(`${base}/nickname`, { token, body: { nickname: "Desk" } }),
    health: () => api.get(`${base}/health`, { token }),
    cmd: () => api.post(`${base}/cmd`, { token, body: { kind: "text", text: "Hi" } }),
    push: () => api.get(`${base}/push`, { token }),
    pushById: () => api.get(`${base}/push/${pushId}`, { token }),
    refresh: () => api.post(`${base}/push/refresh`, { token }),
    pushes: () => api.get(`${base}/pushes`, { token }),
    currentPush: () => api.post(`${base}/current-push`, { token, body: { pushId } }),
    upload: () =>
      api.post(`${base}/custom-push/upload`, { token, body: { contentType: "image/png" } }),
    confirm: () =>
      api.post(`${base}/custom-push/confirm`, {
        token,
        body: { fileId: "01a20190-0000-7000-8000-000000000000" },
      }),
    unbind: () => api.post(`${base}/unbind`, { token }),
  };
}

async function ownedDevice(s: TestServer, userId: string) {
  const device = await createDevice(s, userId);
  await s.app.services.devices.reportState(device.thingName, { battery: 50 });
  const pushId = await insertPush(s, device, userId);
  return { device, pushId };
}

suite.test("a PAT acts as its user on every device, binding and push endpoint", async (api, s) => {
  const alice = await registerUser(api);
  const pat = await patOf(api, alice.accessToken);
  // Binding (CONTRACT.md: devices are `/api/*`): the PAT binds for its user.
  const { device: registered, file } = await provisionedDevice(api);
  const bound = expectStatus(
    await api.post("/api/devices/bind/nfc", {
      token: pat.token,
      body: bindRequestOf(file.nfcPayload),
    }),
    200,
  );
  assertEquals([bound.status, bound.device.id, bound.device.ownerId], [
    "bound",
    registered.id,
    alice.user.id,
  ]);
  const { device, pushId } = await ownedDevice(s, alice.user.id);
  const listed = expectStatus(await api.get("/api/devices", { token: pat.token }), 200);
  assertEquals(listed.map((d: { id: string }) => d.id).sort(), [registered.id, device.id].sort());
  const calls = ownerCalls(api, device.id, pushId, pat.token);
  assert.equal(expectStatus(await calls.device(), 200).ownerId, alice.user.id);
  assertEquals(expectStatus(await calls.state(), 200), { battery: 50 });
  expectStatus(await calls.setNickname(), 200);
  assertEquals(expectStatus(await calls.nickname(), 200), { nickname: "Desk" });
  assert.equal(expectStatus(await calls.health(), 200).id, device.id);
  assert.equal(expectStatus(await calls.cmd(), 200).status, "delivered");
  assertEquals(expectStatus(await calls.push(), 200).pushId, pushId);
  assertEquals(expectStatus(await calls.pushById(), 200).pushId, pushId);
  expectStatus(await calls.refresh(), 200);
  assertEquals(expectStatus(await calls.pushes(), 200).items[0].pushId, pushId);
  expectStatus(await calls.currentPush(), 200);
  const ticket = expectStatus(await calls.upload(), 200);
  const file_ = await s.app.services.db.selectFrom("files").select(["user_id", "device_id"])
    .where("id", "=", ticket.fileId).executeTakeFirstOrThrow();
  assertEquals(file_, { user_id: alice.user.id, device_id: device.id });
  // Past authentication and the owner check: nothing uploaded yet for this (unknown) file.
  expectError(await calls.confirm(), 404);
  expectError(
    await api.post(`/api/devices/${device.id}/custom-push/confirm`, {
      token: pat.token,
      body: { fileId: ticket.fileId },
    }),
    409,
  );
  expectStatus(await calls.unbind(), 200);
  expectError(await calls.device(), 403);
  // The same procedures over tRPC.
  const trpc = await fetch(`${s.url}/trpc/devices.listDevices`, {
    headers: { authorization: `Bearer ${pat.token}` },
  });
  assert.equal(trpc.status, 200);
  const body = await trpc.json();
  assertEquals(body.result.data.map((d: { id: string }) => d.id), [registered.id]);
});

suite.test("another user's PAT gets 403 on your device, like their user token", async (api, s) => {
  const alice = await registerUser(api);
  const bob = await registerUser(api);
  const bobPat = await patOf(api, bob.accessToken);
  const { device, pushId } = await ownedDevice(s, alice.user.id);
  for (const token of [bob.accessToken, bobPat.token]) {
    for (const [name, call] of Object.entries(ownerCalls(api, device.id, pushId, token))) {
      const reply = await call();
      assert.equal(reply.status, 403, `${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
      expectError(reply, 403);
    }
    assertEquals(expectStatus(await api.get("/api/devices", { token }), 200), []);
  }
  // Alice's upload ticket: Bob's PAT cannot confirm it on her device (403) nor on his own (404).
  const ticket = expectStatus(
    await api.post(`/api/devices/${device.id}/custom-push/upload`, {
      token: alice.accessToken,
      body: { contentType: "image/png" },
    }),
    200,
  );
  const bobs = await createDevice(s, bob.user.id);
  const confirm = (id: string) =>
    api.post(`/api/devices/${id}/custom-push/confirm`, {
      token: bobPat.token,
      body: { fileId: ticket.fileId },
    });
  expectError(await confirm(device.id), 403);
  expectError(await confirm(bobs.id), 404);
  // Nor make Alice's push current on his device.
  expectError(
    await api.post(`/api/devices/${bobs.id}/current-push`, {
      token: bobPat.token,
      body: { pushId },
    }),
    404,
  );
  // Nothing changed on Alice's device.
  const row = await s.app.services.db.selectFrom("devices").selectAll()
    .where("id", "=", device.id).executeTakeFirstOrThrow();
  assertEquals([row.owner_id, row.nickname, row.latest_push_id], [alice.user.id, null, null]);
});

suite.test("a revoked, expired or forged PAT is 401 on every endpoint", async (api, s) => {
  const alice = await registerUser(api);
  const { device, pushId } = await ownedDevice(s, alice.user.id);
  const revoked = await patOf(api, alice.accessToken);
  expectStatus(
    await api.delete(`/api/personal-access-tokens/${revoked.id}`, { token: alice.accessToken }),
    204,
  );
  const expiring = await patOf(api, alice.accessToken, {
    name: "soon",
    expiresAt: new Date(Date.now() + 1000).toISOString(),
  });
  await new Promise((r) => setTimeout(r, 1200));
  const forged = `pat_${"A".repeat(40)}`;
  for (const token of [revoked.token, expiring.token, forged]) {
    for (const [name, call] of Object.entries(ownerCalls(api, device.id, pushId, token))) {
      const reply = await call();
      assert.equal(reply.status, 401, `${name}: ${reply.status}`);
      expectError(reply, 401);
    }
    expectError(await api.get("/api/devices", { token }), 401);
    expectError(await api.post("/api/devices/bind/nfc", { token, body: {} }), 401);
    expectError(await api.get("/auth/me", { token }), 401);
  }
});

suite.test(
  "PATs are refused on PAT management, /auth/*, /api/app/v1 and the factory",
  async (api, s) => {
    const alice = await registerUser(api);
    const pat = await patOf(api, alice.accessToken);
    const [session] = expectStatus(
      await api.get("/auth/sessions", { token: alice.accessToken }),
      200,
    );
    const token = pat.token;
    const forbidden = [
      api.get("/api/personal-access-tokens", { token }),
      api.post("/api/personal-access-tokens", { token, body: { name: "x" } }),
      api.delete(`/api/personal-access-tokens/${pat.id}`, { token }),
      api.get("/auth/me", { token }),
      api.put("/auth/me", { token, body: { username: "taken_over" } }),
      api.get("/auth/sessions", { token }),
      api.delete(`/auth/sessions/${session.id}`, { token }),
      api.post("/auth/logout", { token, body: {} }),
      api.get("/auth/subscription", { token }),
      api.get("/auth/subscription/invoices", { token }),
      api.post("/auth/subscription/checkout", { token, body: { interval: "monthly" } }),
      api.post("/auth/subscription/portal", { token }),
      api.delete("/auth/account", { token, body: { confirm: true, password: alice.password } }),
    ];
    for (const reply of await Promise.all(forbidden)) expectError(reply, 403);
    const app = expectStatus(await api.get("/api/app/v1/me", { token }), 403);
    assertEquals(Object.keys(app.error).sort(), ["code", "message", "requestId"]);
    expectError(await api.get("/internal/factory/whoami", { token }), 401);
    expectError(await api.get("/internal/factory/batches", { token }), 401);
    // Nothing happened: the session, the PAT and the account are all still there.
    expectStatus(await api.get("/auth/me", { token: alice.accessToken }), 200);
    expectStatus(await api.get("/api/sdk/v1/me", { token }), 200);
    const me = expectStatus(await api.get("/auth/me", { token: alice.accessToken }), 200);
    assert.equal(me.username, alice.user.username);
    // Over tRPC too.
    for (const path of ["accounts.getMe", "pats.listPats", "billing.getSubscription", "app.me"]) {
      const res = await fetch(`${s.url}/trpc/${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await res.body?.cancel();
      assert.equal(res.status, 403, path);
    }
  },
);

suite.test("user tokens are refused on /api/sdk/v1 (403) and the factory (401)", async (api) => {
  const alice = await registerUser(api);
  const sdk = await api.get("/api/sdk/v1/me", { token: alice.accessToken });
  const body = expectStatus(sdk, 403);
  assertEquals(body.error.code, "forbidden");
  assertEquals(body.error.requestId, sdk.headers.get("x-request-id"));
  for (const path of ["/whoami", "/batches", "/stats", "/audit-logs"]) {
    expectError(await api.get(`/internal/factory${path}`, { token: alice.accessToken }), 401);
  }
});

suite.test("a factory token is 401 on every user endpoint", async (api, s) => {
  const alice = await registerUser(api);
  const { device, pushId } = await ownedDevice(s, alice.user.id);
  const token = tokenOf("sup");
  expectStatus(await api.get("/internal/factory/whoami", { token }), 200);
  for (const [name, call] of Object.entries(ownerCalls(api, device.id, pushId, token))) {
    const reply = await call();
    assert.equal(reply.status, 401, name);
  }
  for (
    const reply of await Promise.all([
      api.get("/api/devices", { token }),
      api.get("/api/personal-access-tokens", { token }),
      api.get("/auth/me", { token }),
      api.get("/auth/subscription", { token }),
      api.delete("/auth/account", { token, body: { confirm: true } }),
    ])
  ) expectError(reply, 401);
  for (const path of ["/api/sdk/v1/me", "/api/app/v1/me"]) {
    assertEquals(expectStatus(await api.get(path, { token }), 401).error.code, "unauthorized");
  }
});

suite.test(
  "an expired access token is 401 everywhere, account deletion included",
  async (api, s) => {
    const alice = await registerUser(api);
    const { device } = await ownedDevice(s, alice.user.id);
    const claims = decodeJwt(alice.accessToken);
    // Same secret, same live session, but already expired.
    const expired = await new AccessTokens(s.env.JWT_SECRET, -60).sign(
      alice.user.id,
      claims.sid as string,
    );
    for (
      const reply of await Promise.all([
        api.get("/auth/me", { token: expired }),
        api.get("/api/devices", { token: expired }),
        api.get(`/api/devices/${device.id}`, { token: expired }),
        api.get("/api/personal-access-tokens", { token: expired }),
        api.delete("/auth/account", {
          token: expired,
          body: { confirm: true, password: alice.password },
        }),
      ])
    ) expectError(reply, 401);
    expectStatus(await api.get("/api/app/v1/me", { token: expired }), 401);
    expectStatus(await api.get("/auth/me", { token: alice.accessToken }), 200);
  },
);

suite.end();
