/** SPEC 2.7, 2.8, 3.6, 4.5 (owner endpoints), 4.1 (account deletion unlinks devices). */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { createDevice, deviceRow, insertPush } from "./helpers/devices.ts";
import { connectDevice } from "./helpers/mqtt.ts";
import { startTestServer } from "./helpers/server.ts";
import { client } from "./helpers/http.ts";

const suite = serverSuite("devices");
const MISSING = "01a20190-0000-7000-8000-000000000000";

suite.test(
  "list is [] without devices and shows only the caller's bound devices",
  async (api, s) => {
    const alice = await registerUser(api);
    const bob = await registerUser(api);
    assertEquals(
      expectStatus(await api.get("/api/devices", { token: alice.accessToken }), 200),
      [],
    );
    const mine = await createDevice(s, alice.user.id);
    await createDevice(s, bob.user.id);
    await createDevice(s);
    const list = expectStatus(await api.get("/api/devices", { token: alice.accessToken }), 200);
    assert.equal(list.length, 1);
    // SPEC 2.7: null optionals omitted; state, stateUpdatedAt and claimCode never listed.
    assertEquals(Object.keys(list[0]).sort(), [
      "boundAt",
      "hwId",
      "id",
      "online",
      "ownerId",
      "tags",
      "thingName",
      // CONTRACT.md "Displays people already own": an added field.
      "transport",
    ]);
    assertEquals(list[0].id, mine.id);
    assertEquals(list[0].tags, ["undeclared"]);
    expectError(await api.get("/api/devices"), 401);
    // CONTRACT.md: a PAT acts as its user on `/api/*` (SPEC 5.4); another user's PAT gets that
    // user's answers (their list, 403 on this device).
    const pat = expectStatus(
      await api.post("/api/personal-access-tokens", {
        token: alice.accessToken,
        body: { name: "script" },
      }),
      201,
    );
    assertEquals(
      expectStatus(await api.get("/api/devices", { token: pat.token }), 200),
      list,
    );
    assertEquals(
      expectStatus(await api.get(`/api/devices/${mine.id}`, { token: pat.token }), 200).id,
      mine.id,
    );
    const bobPat = expectStatus(
      await api.post("/api/personal-access-tokens", {
        token: bob.accessToken,
        body: { name: "script" },
      }),
      201,
    );
    const bobList = expectStatus(await api.get("/api/devices", { token: bobPat.token }), 200);
    assert.equal(bobList.some((d: { id: string }) => d.id === mine.id), false);
    expectError(await api.get(`/api/devices/${mine.id}`, { token: bobPat.token }), 403);
  },
);

suite.test("list omits state but includes reported optionals", async (api, s) => {
  const alice = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  await s.app.services.devices.reportState(d.thingName, { battery: 80, firmware: "1.2.3" });
  const [item] = expectStatus(await api.get("/api/devices", { token: alice.accessToken }), 200);
  assert.equal(item.battery, 80);
  assert.equal(item.firmware, "1.2.3");
  assert.ok(item.lastSeenAt);
  assert.ok(!("state" in item) && !("stateUpdatedAt" in item) && !("claimCode" in item));
});

suite.test(
  "read returns the device with state as an escaped string; 400/401/403/404",
  async (api, s) => {
    const alice = await registerUser(api);
    const bob = await registerUser(api);
    const d = await createDevice(s, alice.user.id);
    await s.app.services.devices.reportState(d.thingName, { mode: "eco", battery: 55 });
    const body = expectStatus(
      await api.get(`/api/devices/${d.id}`, { token: alice.accessToken }),
      200,
    );
    assert.equal(typeof body.state, "string");
    assertEquals(JSON.parse(body.state), { mode: "eco", battery: 55 });
    assert.equal(body.battery, 55);
    assert.equal(body.claimCode, null);
    assert.equal(body.ownerId, alice.user.id);
    assert.ok(body.stateUpdatedAt);
    expectError(await api.get(`/api/devices/${d.id}`), 401);
    expectError(await api.get(`/api/devices/${d.id}`, { token: bob.accessToken }), 403);
    expectError(await api.get(`/api/devices/${MISSING}`, { token: alice.accessToken }), 404);
    expectError(await api.get(`/api/devices/not-a-uuid`, { token: alice.accessToken }), 400);
  },
);

suite.test("state is 404 until reported, then the parsed object", async (api, s) => {
  const alice = await registerUser(api);
  const bob = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  expectError(await api.get(`/api/devices/${d.id}/state`, { token: alice.accessToken }), 404);
  await s.app.services.devices.reportState(d.thingName, { screen: { on: true }, n: 1 });
  assertEquals(
    expectStatus(await api.get(`/api/devices/${d.id}/state`, { token: alice.accessToken }), 200),
    { screen: { on: true }, n: 1 },
  );
  expectError(await api.get(`/api/devices/${d.id}/state`, { token: bob.accessToken }), 403);
  expectError(await api.get(`/api/devices/${MISSING}/state`, { token: alice.accessToken }), 404);
});

suite.test("nickname falls back to hwId, can be set and cleared; 400/403/404", async (api, s) => {
  const alice = await registerUser(api);
  const bob = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  const path = `/api/devices/${d.id}/nickname`;
  const token = alice.accessToken;
  assertEquals(expectStatus(await api.get(path, { token }), 200), { nickname: d.hwId });
  const set = expectStatus(await api.put(path, { token, body: { nickname: "Kitchen" } }), 200);
  assert.equal(typeof set.message, "string");
  assertEquals(expectStatus(await api.get(path, { token }), 200), { nickname: "Kitchen" });
  expectStatus(await api.put(path, { token, body: { nickname: "" } }), 200);
  assertEquals(expectStatus(await api.get(path, { token }), 200), { nickname: d.hwId });
  assert.equal((await deviceRow(s, d.id)).nickname, null);
  expectError(await api.put(path, { token, body: {} }), 400);
  expectError(await api.put(path, { token, body: { nickname: 5 } }), 400);
  expectError(await api.put(path, { token, body: { nickname: "x".repeat(65) } }), 400);
  // 64 characters, counted as code points: 64 emoji fit.
  expectStatus(await api.put(path, { token, body: { nickname: "\u{1F600}".repeat(64) } }), 200);
  expectError(await api.put(path, { token, body: { nickname: "\u{1F600}".repeat(65) } }), 400);
  expectError(await api.get(path, { token: bob.accessToken }), 403);
  expectError(await api.put(path, { token: bob.accessToken, body: { nickname: "x" } }), 403);
  expectError(await api.get(`/api/devices/${MISSING}/nickname`, { token }), 404);
});

suite.test("health has exactly the SPEC fields, nickname falling back to hwId", async (api, s) => {
  const alice = await registerUser(api);
  const bob = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  await s.app.services.devices.heartbeat(d.thingName, { battery: 42, firmware: "2.0" });
  const body = expectStatus(
    await api.get(`/api/devices/${d.id}/health`, { token: alice.accessToken }),
    200,
  );
  assertEquals(Object.keys(body).sort(), [
    "battery",
    "firmware",
    "hwId",
    "id",
    "lastSeenAt",
    "latestPushAt",
    "latestPushId",
    "nickname",
    "online",
    "state",
    "stateUpdatedAt",
  ]);
  assert.equal(body.nickname, d.hwId);
  assert.equal(body.online, true);
  assert.equal(body.battery, 42);
  expectError(await api.get(`/api/devices/${d.id}/health`, { token: bob.accessToken }), 403);
  expectError(await api.get(`/api/devices/${MISSING}/health`, { token: alice.accessToken }), 404);
});

suite.test("cmd delivers a text command over MQTT and records it delivered", async (api, s) => {
  const alice = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  const device = await connectDevice(s.app.mqttUrl, d.thingName);
  try {
    // A NUL character cannot be recorded: 400, and nothing reaches the device (checked below:
    // the first text command it receives is "Hello").
    expectError(
      await api.post(`/api/devices/${d.id}/cmd`, {
        token: alice.accessToken,
        body: { kind: "text", text: "a\u0000b" },
      }),
      400,
    );
    const body = expectStatus(
      await api.post(`/api/devices/${d.id}/cmd`, {
        token: alice.accessToken,
        body: { kind: "text", text: "Hello" },
      }),
      200,
    );
    assertEquals(Object.keys(body).sort(), [
      "createdAt",
      "id",
      "kind",
      "payload",
      "status",
      "thingName",
    ]);
    assert.equal(body.status, "delivered");
    assert.equal(body.thingName, d.thingName);
    assertEquals(JSON.parse(body.payload), { id: body.id, kind: "text", text: "Hello" });
    const received = await device.next("down/cmd", (m) => m.kind === "text");
    assertEquals(received, { id: body.id, kind: "text", text: "Hello" });
  } finally {
    await device.close();
  }
});

suite.test("cmd: 400 for other kinds or missing text, 401, 403, 404", async (api, s) => {
  const alice = await registerUser(api);
  const bob = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  const path = `/api/devices/${d.id}/cmd`;
  const token = alice.accessToken;
  expectError(await api.post(path, { token, body: { kind: "reboot" } }), 400);
  expectError(await api.post(path, { token, body: { kind: "text" } }), 400);
  expectError(await api.post(path, { token, body: { text: "x" } }), 400);
  expectError(await api.post(path, { body: { kind: "text", text: "x" } }), 401);
  expectError(
    await api.post(path, { token: bob.accessToken, body: { kind: "text", text: "x" } }),
    403,
  );
  expectError(
    await api.post(`/api/devices/${MISSING}/cmd`, { token, body: { kind: "text", text: "x" } }),
    404,
  );
  expectError(
    await api.post(`/api/devices/nope/cmd`, { token, body: { kind: "text", text: "x" } }),
    400,
  );
});

suite.test(
  "unbind makes the device claimable, deletes its pushes and sends unbound",
  async (api, s) => {
    const alice = await registerUser(api);
    const bob = await registerUser(api);
    const d = await createDevice(s, alice.user.id);
    const pushId = await insertPush(s, d, alice.user.id);
    const device = await connectDevice(s.app.mqttUrl, d.thingName);
    try {
      expectError(await api.post(`/api/devices/${d.id}/unbind`, { token: bob.accessToken }), 403);
      expectError(
        await api.post(`/api/devices/${MISSING}/unbind`, { token: alice.accessToken }),
        404,
      );
      expectError(await api.post(`/api/devices/${d.id}/unbind`), 401);
      const body = expectStatus(
        await api.post(`/api/devices/${d.id}/unbind`, { token: alice.accessToken }),
        200,
      );
      assert.equal(typeof body.message, "string");
      assertEquals(await device.next("down/cmd", (m) => m.kind === "unbound"), { kind: "unbound" });
      const row = await deviceRow(s, d.id);
      assert.equal(row.owner_id, null);
      assert.equal(row.bound_at, null);
      assert.match(row.claim_code ?? "", /^[A-Z0-9]{6}$/);
      assert.equal(row.latest_push_id, null);
      const pushes = await s.app.services.db.selectFrom("pushes").select("id")
        .where("id", "=", pushId).execute();
      assertEquals(pushes, []);
      assert.equal(
        await s.app.services.storage.head(`render/${alice.user.id}/${d.id}/${pushId}/image.png`),
        null,
      );
      assertEquals(
        expectStatus(await api.get("/api/devices", { token: alice.accessToken }), 200),
        [],
      );
      expectError(await api.get(`/api/devices/${d.id}`, { token: alice.accessToken }), 403);
    } finally {
      await device.close();
    }
  },
);

suite.test(
  "account deletion unlinks devices (claimable) and deletes their pushes",
  async (api, s) => {
    const alice = await registerUser(api);
    const d = await createDevice(s, alice.user.id);
    const pushId = await insertPush(s, d, alice.user.id);
    await s.app.services.db.updateTable("devices").set({ latest_push_id: pushId })
      .where("id", "=", d.id).execute();
    const sim = await connectDevice(s.app.mqttUrl, d.thingName);
    try {
      const reply = await api.delete("/auth/account", {
        token: alice.accessToken,
        body: { confirm: true, password: alice.password },
      });
      assert.equal(reply.status, 204);
      // SPEC 3.6: the device learns it is unbound and shows its claim screen.
      assertEquals(await sim.next("down/cmd", (m) => m.kind === "unbound"), { kind: "unbound" });
    } finally {
      await sim.close();
    }
    const row = await deviceRow(s, d.id);
    assert.equal(row.owner_id, null);
    assert.equal(row.bound_at, null);
    assert.equal(row.latest_push_id, null);
    assert.match(row.claim_code ?? "", /^[A-Z0-9]{6}$/);
    const left = await s.app.services.db.selectFrom("pushes").select("id")
      .where("device_id", "=", d.id).execute();
    assertEquals(left, []);
    // The user's stored objects go too (after the commit).
    const png = `render/${alice.user.id}/${d.id}/${pushId}/image.png`;
    assert.equal(await s.app.services.storage.head(png), null);
  },
);

suite.end();

Deno.test({
  name: "devices: with the broker unreachable, cmd answers 503 and records nothing; unbind works",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // Port 1 refuses connections: the service's client can never reach a broker.
    const s = await startTestServer({ MQTT_URL: "mqtt://127.0.0.1:1" });
    try {
      const api = client(s.url);
      const alice = await registerUser(api);
      const d = await createDevice(s, alice.user.id);
      const reply = await api.post(`/api/devices/${d.id}/cmd`, {
        token: alice.accessToken,
        body: { kind: "text", text: "lost" },
      });
      expectError(reply, 503, /MQTT/);
      const rows = await s.app.services.db.selectFrom("device_commands").select("id").execute();
      assertEquals(rows, []);
      // Unbinding does not depend on the broker: it succeeds, the message is best-effort.
      expectStatus(
        await api.post(`/api/devices/${d.id}/unbind`, { token: alice.accessToken }),
        200,
      );
      assert.equal((await deviceRow(s, d.id)).owner_id, null);
    } finally {
      await s.close();
    }
  },
});

Deno.test({
  name: "devices: a taken MQTT_PORT stops start-up with one line naming MQTT_PORT and MQTT_URL",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const port = (holder.addr as Deno.NetAddr).port;
      let message = "";
      try {
        const s = await startTestServer({ MQTT_URL: "", MQTT_PORT: String(port) });
        await s.close();
      } catch (error) {
        message = (error as Error).message;
      }
      assert.match(message, /MQTT_PORT/);
      assert.match(message, /MQTT_URL/);
      assert.ok(!message.includes("\n"));
    } finally {
      holder.close();
    }
  },
});
