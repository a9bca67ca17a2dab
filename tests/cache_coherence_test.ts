/**
 * Issue 13: the request path's caches (sessions, PATs, device ownership, pushes, /auth/me) are
 * exact across processes. Two servers share one PostgreSQL database; server B's caches are
 * warmed, the change is made on server A, and B's very next request must see it. Needs the
 * external PostgreSQL (DATABASE_URL): PGlite is one process.
 */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, client, registerUser } from "./helpers/http.ts";
import {
  createDatabase,
  externalDatabaseUrl,
  startTestServer,
  type TestServer,
} from "./helpers/server.ts";
import { createDevice, insertPush } from "./helpers/devices.ts";
import postgres from "postgres";
import { LISTENER_NAME } from "../src/infra/db/cache/sources.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** Runs `fn` with servers A and B on one fresh database. */
async function twoServers(
  fn: (a: Client, b: Client, sa: TestServer, sb: TestServer) => Promise<void>,
) {
  const database = await createDatabase(externalDatabaseUrl!);
  let sa: TestServer | undefined;
  let sb: TestServer | undefined;
  try {
    // One after the other: A applies the migrations, B finds them applied.
    sa = await startTestServer({ DATABASE_URL: database.url });
    sb = await startTestServer({ DATABASE_URL: database.url });
    await fn(client(sa.url), client(sb.url), sa, sb);
  } finally {
    await sb?.close();
    await sa?.close();
    await database.drop();
  }
}

/**
 * Calls `read` on B until one is answered from B's caches alone: `caches` hits (the credential,
 * and the resource when it is cached too). The first call fills them.
 */
async function warm(sb: TestServer, caches: number, read: () => Promise<{ status: number }>) {
  for (let i = 0; i < 50; i++) {
    const hits = sb.app.services.changes.hits;
    assert.equal((await read()).status, 200);
    if (sb.app.services.changes.hits - hits >= caches) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("B never answered from its caches");
}

Deno.test({
  name: "caches: logout, session deletion and a profile change on A are seen by B's next request",
  ignore: !externalDatabaseUrl,
  ...options,
  fn: () =>
    twoServers(async (a, b, _sa, sb) => {
      const user = await registerUser(a);
      const token = user.accessToken;
      await warm(sb, 2, () => b.get("/auth/me", { token }));
      expectStatus(
        await a.post("/auth/logout", { token, body: { refreshToken: user.refreshToken } }),
        200,
      );
      expectError(await b.get("/auth/me", { token }), 401);

      const other = await registerUser(a);
      const second = expectStatus(
        await a.post("/auth/login", {
          body: { identifier: other.user.email, password: other.password },
          headers: { "user-agent": "Second/1" },
        }),
        200,
      );
      await warm(sb, 2, () => b.get("/auth/me", { token: second.accessToken }));
      const sessions = expectStatus(
        await a.get("/auth/sessions", { token: other.accessToken }),
        200,
      );
      const target = sessions.find((s: { userAgent: string }) => s.userAgent === "Second/1");
      expectStatus(
        await a.delete(`/auth/sessions/${target.id}`, { token: other.accessToken }),
        200,
      );
      expectError(await b.get("/auth/me", { token: second.accessToken }), 401);

      // /auth/me itself is cached: a change of the user on A shows on B.
      await warm(sb, 2, () => b.get("/auth/me", { token: other.accessToken }));
      const renamed = `${other.user.username}x`;
      expectStatus(
        await a.put("/auth/me", { token: other.accessToken, body: { username: renamed } }),
        200,
      );
      const me = expectStatus(await b.get("/auth/me", { token: other.accessToken }), 200);
      assert.equal(me.username, renamed);
    }),
});

Deno.test({
  name: "caches: a PAT revoked on A is refused by B's next request",
  ignore: !externalDatabaseUrl,
  ...options,
  fn: () =>
    twoServers(async (a, b, _sa, sb) => {
      const user = await registerUser(a);
      const pat = expectStatus(
        await a.post("/api/personal-access-tokens", {
          token: user.accessToken,
          body: { name: "fleet" },
        }),
        201,
      );
      await warm(sb, 2, () => b.get("/api/sdk/v1/me", { token: pat.token }));
      expectStatus(
        await a.delete(`/api/personal-access-tokens/${pat.id}`, { token: user.accessToken }),
        204,
      );
      assert.equal((await b.get("/api/sdk/v1/me", { token: pat.token })).status, 401);
    }),
});

Deno.test({
  name: "caches: a new current push and an unbind on A are seen by B's next GET push",
  ignore: !externalDatabaseUrl,
  ...options,
  fn: () =>
    twoServers(async (a, b, sa, sb) => {
      const user = await registerUser(a);
      const token = user.accessToken;
      const device = await createDevice(sa, user.user.id);
      const base = `/api/devices/${device.id}`;
      const first = await insertPush(sa, device, user.user.id);
      const next = await insertPush(sa, device, user.user.id, { priority: -1 });
      // The first GET promotes `first` (a write on B); the next ones are served from B's cache.
      await warm(sb, 3, () => b.get(`${base}/push`, { token }));
      assertEquals(expectStatus(await b.get(`${base}/push`, { token }), 200).pushId, first);

      expectStatus(await a.post(`${base}/current-push`, { token, body: { pushId: next } }), 200);
      const now = expectStatus(await b.get(`${base}/push`, { token }), 200);
      assertEquals([now.pushId, now.status], [next, "PUBLISHED"]);

      expectStatus(await a.post(`${base}/unbind`, { token }), 200);
      const after = await b.get(`${base}/push`, { token });
      assert.notEqual(after.status, 200);
      // Whatever B answers is what A answers: the device is no longer the caller's.
      assert.equal(after.status, (await a.get(`${base}/push`, { token })).status);
    }),
});

Deno.test({
  name:
    "caches: a display's reset, profile, button and unbind on A are seen by B's next unchanged poll",
  ignore: !externalDatabaseUrl,
  ...options,
  fn: () =>
    twoServers(async (a, b, sa, sb) => {
      const user = await registerUser(a);
      const token = user.accessToken;
      const mac = "A4:CC:00:11:22:33";
      const { api_key: key, friendly_id: code } = expectStatus(
        await a.get("/api/setup", { headers: { ID: mac } }),
        200,
      );
      const { device } = expectStatus(
        await a.post("/api/devices/claim", { token, body: { code } }),
        200,
      );
      const poll = () =>
        b.get("/api/display", {
          headers: { ID: mac, "Access-Token": key, Model: "og", Width: "800", Height: "480" },
        });
      // The display by its key and the device's head: both from B's caches.
      await warm(sb, 2, poll);
      // The owner's reset on A: B's next poll says so, once.
      expectStatus(await a.post(`/api/devices/${device.id}/reset`, { token }), 200);
      assertEquals(expectStatus(await poll(), 200).reset_firmware, true);
      assertEquals(expectStatus(await poll(), 200).reset_firmware, false);
      // A refresh interval set on A is B's next refresh_rate.
      await warm(sb, 2, poll);
      expectStatus(
        await a.put(`/api/devices/${device.id}/display-profile`, {
          token,
          body: { refreshRate: 1234 },
        }),
        200,
      );
      assertEquals(expectStatus(await poll(), 200).refresh_rate, 1234);
      // A push queued through A's database is shown by B's next poll (its "waiting" answer
      // was cached while nothing waited).
      await warm(sb, 2, poll);
      const queued = await insertPush(sa, { id: device.id }, user.user.id);
      const shown = expectStatus(await poll(), 200);
      assertEquals(shown.image_url.includes(queued), true);
      // A button action chosen on A is announced by B's next poll.
      await warm(sb, 2, poll);
      expectStatus(
        await a.put(`/api/devices/${device.id}/button`, { token, body: { action: "identify" } }),
        200,
      );
      assertEquals(expectStatus(await poll(), 200).special_function, "identify");
      // Unbound on A: B refuses the key at once.
      await warm(sb, 2, poll);
      expectStatus(await a.post(`/api/devices/${device.id}/unbind`, { token }), 200);
      expectError(await poll(), 401);
    }),
});

Deno.test({
  name:
    "caches: keyless turned off, or the display unbound, on A: B's next key-less poll shows no pictures",
  ignore: !externalDatabaseUrl,
  ...options,
  fn: () =>
    twoServers(async (a, b, _sa, sb) => {
      const user = await registerUser(a);
      const token = user.accessToken;
      const mac = "C3:CC:00:11:22:33";
      const { friendly_id: code } = expectStatus(
        await a.get("/api/setup", { headers: { ID: mac } }),
        200,
      );
      const { device } = expectStatus(
        await a.post("/api/devices/claim", { token, body: { code } }),
        200,
      );
      const keyless = (on: boolean) =>
        a.put(`/api/devices/${device.id}/display-profile`, { token, body: { keyless: on } });
      // The Pi client without a key, polling B.
      const poll = () => b.get("/api/display", { headers: { ID: mac, rssi: "0" } });
      expectStatus(await keyless(true), 200);
      // The display by its MAC and the device's head: both from B's caches.
      await warm(sb, 2, poll);
      assertEquals(expectStatus(await poll(), 200).status, 0);
      expectStatus(await keyless(false), 200);
      assertEquals(expectStatus(await poll(), 200).status, 202);
      expectStatus(await keyless(true), 200);
      await warm(sb, 2, poll);
      assertEquals(expectStatus(await poll(), 200).status, 0);
      // Unbound on A: on B the MAC is no one's at once (a claim screen, not the pictures).
      expectStatus(await a.post(`/api/devices/${device.id}/unbind`, { token }), 200);
      const after = expectStatus(await poll(), 200);
      assertEquals(after.status, 202);
      assert.ok(!after.image_url.includes("/api/display/image/"), after.image_url);
    }),
});

Deno.test({
  name: "caches: while B's listening connection is down B reads through, and after it is back",
  ignore: !externalDatabaseUrl,
  ...options,
  fn: () =>
    twoServers(async (a, b, _sa, sb) => {
      const user = await registerUser(a);
      const token = user.accessToken;
      const changes = sb.app.services.changes;
      await warm(sb, 2, () => b.get("/auth/me", { token }));
      // Ends every listening connection of the database (A's and B's), as a restart would.
      const sql = postgres(sb.env.DATABASE_URL, { max: 1, onnotice: () => {} });
      try {
        await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = ${LISTENER_NAME}`;
      } finally {
        await sql.end();
      }
      await until(() => !changes.listening);
      // A notification sent now reaches nobody on B: B must not answer from what it had.
      const renamed = `${user.user.username}y`;
      expectStatus(await a.put("/auth/me", { token, body: { username: renamed } }), 200);
      const hits = changes.hits;
      assert.equal(expectStatus(await b.get("/auth/me", { token }), 200).username, renamed);
      assert.equal(changes.hits, hits);
      // Listening again, B caches again, and hears the next change.
      await until(() => changes.listening);
      await warm(sb, 2, () => b.get("/auth/me", { token }));
      expectStatus(
        await a.post("/auth/logout", { token, body: { refreshToken: user.refreshToken } }),
        200,
      );
      expectError(await b.get("/auth/me", { token }), 401);
    }),
});

async function until(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(condition());
}
