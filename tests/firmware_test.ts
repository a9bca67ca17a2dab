/**
 * Issue 24, firmware updates: the factory's registry (upload, assign, pause, resume, progress,
 * every role and scope refused where the access table says so, every action audited) and the
 * devices' side (a display's poll gets `update_firmware` and a signed `firmware_url` at most once
 * a day; an owner's hold stops it; another user's device is refused).
 */
import { assert, assertEquals, expectError, expectStatus } from "./helpers/assert.ts";
import { type Client, registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { claimedDisplay } from "./helpers/displays.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import { createDevice, deviceRow } from "./helpers/devices.ts";
import { connectDevice } from "./helpers/mqtt.ts";
import {
  as,
  createBatch,
  factoryEnv,
  type PrincipalName,
  registerDevice,
  tokenOf,
} from "./helpers/factory.ts";

const suite = serverSuite("firmware", factoryEnv({ DISPLAY_SETUPS_PER_MINUTE: "100" }));

let n = 0;
/** A unique version, model or SKU. */
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(n++).toString(36)}`;

/** A multipart upload body. */
function buildForm(
  fields: Record<string, string>,
  file: Uint8Array<ArrayBuffer> = new Uint8Array([1, 2, 3, 4, 5]),
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set("file", new Blob([file]), "fw.bin");
  return form;
}

function upload(
  api: Client,
  who: PrincipalName | null,
  fields: Record<string, string>,
  file?: Uint8Array<ArrayBuffer>,
) {
  return api.post("/internal/factory/firmware", {
    ...(who ? { token: tokenOf(who) } : {}),
    raw: buildForm(fields, file),
  });
}

async function newBuild(
  api: Client,
  fields: Record<string, string>,
  file?: Uint8Array<ArrayBuffer>,
) {
  return expectStatus(await upload(api, "sup", { version: unique("1.7."), ...fields }, file), 201);
}

function assign(
  api: Client,
  who: PrincipalName,
  buildId: string,
  targetKind: string,
  target: string,
) {
  return as(api, who).post(`/firmware/${buildId}/rollouts`, { body: { targetKind, target } });
}

async function audit(api: Client, action: string) {
  const body = expectStatus(await as(api, "aud").get(`/audit-logs?action=${action}&limit=50`), 200);
  return body.items as {
    action: string;
    result: string;
    principalId: string | null;
    detail: Record<string, unknown>;
  }[];
}

function poll(api: Client, d: { mac: string; key: string }, model: string, version: string) {
  return api.get("/api/display", {
    headers: {
      ID: d.mac,
      "Access-Token": d.key,
      "FW-Version": version,
      Model: model,
      Width: "800",
      Height: "480",
    },
  });
}

// ---- the registry -----------------------------------------------------------------------------

suite.test("upload: 401 without a factory token, 403 for an operator and an auditor", async (api) => {
  const version = unique("1.7.");
  expectError(await upload(api, null, { version, skus: "SKU-A" }), 401);
  const user = await registerUser(api);
  expectError(
    await api.post("/internal/factory/firmware", {
      token: user.accessToken,
      raw: buildForm({ version, skus: "SKU-A" }),
    }),
    401,
  );
  expectError(await upload(api, "op", { version, skus: "SKU-A" }), 403);
  expectError(await upload(api, "aud", { version, skus: "SKU-A" }), 403);
  const denied = await audit(api, "firmware.upload");
  assert.ok(denied.some((e) => e.principalId === "op" && e.result === "denied"));
  assert.ok(denied.some((e) => e.principalId === "aud" && e.result === "denied"));
});

suite.test("upload: a supervisor stores the build, hashed, audited; bad fields are 400", async (api) => {
  const file = new Uint8Array(4096).map((_, i) => i & 0xff);
  const version = unique("2.0.");
  const build = expectStatus(
    await upload(
      api,
      "sup",
      { version, models: "og, og_gen2", skus: "SKU-A", notes: "fixes" },
      file,
    ),
    201,
  );
  assertEquals([build.version, build.models, build.skus, build.notes, build.sizeBytes], [
    version,
    ["og", "og_gen2"],
    ["SKU-A"],
    "fixes",
    4096,
  ]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", file)).toHex();
  assert.equal(build.sha256, digest);
  const uploaded = await audit(api, "firmware.upload");
  assert.ok(uploaded.some((e) => e.result === "success" && e.detail.buildId === build.id));

  // The same version again is 409; a bad version, no model or SKU, an empty file are 400.
  expectError(await upload(api, "sup", { version, skus: "SKU-A" }), 409);
  expectError(await upload(api, "sup", { version: "bad version!", skus: "SKU-A" }), 400);
  expectError(await upload(api, "sup", { version: unique("3.") }), 400);
  expectError(
    await upload(api, "sup", { version: unique("3."), skus: "A" }, new Uint8Array()),
    400,
  );
  // Not multipart, no file.
  expectError(
    await api.post("/internal/factory/firmware", { token: tokenOf("sup"), body: { version } }),
    400,
  );
  const noFile = new FormData();
  noFile.set("version", unique("3."));
  noFile.set("skus", "SKU-A");
  expectError(
    await api.post("/internal/factory/firmware", { token: tokenOf("sup"), raw: noFile }),
    400,
  );
});

suite.test("upload: over 16 MiB is 413, from the declared length before anything is read", async (api) => {
  const reply = await api.post("/internal/factory/firmware", {
    token: tokenOf("sup"),
    headers: { "content-type": "multipart/form-data; boundary=x" },
    raw: new Uint8Array(16 * 1024 * 1024 + 70 * 1024),
  });
  expectError(reply, 413);
});

suite.test("upload: a SKU-scoped supervisor may not list another SKU or any model (403, audited)", async (api) => {
  expectError(await upload(api, "skuSup", { version: unique("4."), skus: "SKU-B" }), 403);
  expectError(await upload(api, "skuSup", { version: unique("4."), models: "og" }), 403);
  expectStatus(await upload(api, "skuSup", { version: unique("4."), skus: "SKU-A" }), 201);
  const rows = await audit(api, "firmware.upload");
  assert.ok(rows.some((e) => e.principalId === "skuSup" && e.result === "denied"));
});

suite.test("list: every role reads; a SKU-scoped auditor sees only builds of its SKU", async (api) => {
  const a = await newBuild(api, { skus: "SKU-A" });
  const b = await newBuild(api, { skus: "SKU-B" });
  for (const who of ["sup", "op", "aud"] as const) {
    const ids = expectStatus(await as(api, who).get("/firmware?limit=200"), 200).items
      .map((x: { id: string }) => x.id);
    assert.ok(ids.includes(a.id) && ids.includes(b.id), who);
  }
  const scoped = expectStatus(await as(api, "skuAud").get("/firmware?limit=200"), 200).items
    .map((x: { id: string }) => x.id);
  assert.ok(scoped.includes(a.id));
  assert.ok(!scoped.includes(b.id));
  expectError(await api.get("/internal/factory/firmware"), 401);
  expectError(await as(api, "aud").get("/firmware?limit=1000"), 400);
});

suite.test("assign: supervisor only; target must fit the build; a second time is 409", async (api) => {
  const build = await newBuild(api, { skus: "SKU-A", models: unique("m") });
  expectError(await assign(api, "op", build.id, "sku", "SKU-A"), 403);
  expectError(await assign(api, "aud", build.id, "sku", "SKU-A"), 403);
  expectError(await assign(api, "sup", build.id, "sku", "SKU-Z"), 400);
  expectError(await assign(api, "sup", build.id, "model", "other-model"), 400);
  expectError(await assign(api, "sup", build.id, "shelf", "SKU-A"), 400);
  expectError(await assign(api, "sup", crypto.randomUUID(), "sku", "SKU-A"), 404);
  expectError(await assign(api, "sup", build.id, "batch", crypto.randomUUID()), 404);
  expectError(await assign(api, "sup", build.id, "batch", "not-a-uuid"), 400);
  const rollout = expectStatus(await assign(api, "sup", build.id, "sku", "SKU-A"), 201);
  assertEquals([rollout.buildId, rollout.targetKind, rollout.target, rollout.status], [
    build.id,
    "sku",
    "SKU-A",
    "active",
  ]);
  expectError(await assign(api, "sup", build.id, "sku", "SKU-A"), 409);
  const created = await audit(api, "firmware_rollout.create");
  assert.ok(created.some((e) => e.result === "success" && e.detail.rolloutId === rollout.id));
  assert.ok(created.some((e) => e.principalId === "op" && e.result === "denied"));
});

suite.test("assign: scope holds: batch outside, SKU with restricted batches, model while scoped", async (api) => {
  const build = await newBuild(api, { skus: "SKU-A", models: "og" });
  const outside = await createBatch(api, { sku: "SKU-A" });
  // scopedSup: batches ["PO-SCOPE"] only.
  expectError(await assign(api, "scopedSup", build.id, "batch", outside.id), 403);
  expectError(await assign(api, "scopedSup", build.id, "sku", "SKU-A"), 403);
  // skuSup: every batch, SKU-A only: a SKU-A rollout yes, a model no.
  expectError(await assign(api, "skuSup", build.id, "model", "og"), 403);
  expectStatus(await assign(api, "skuSup", build.id, "sku", "SKU-A"), 201);
  const batchRollout = expectStatus(await assign(api, "sup", build.id, "batch", outside.id), 201);
  assert.equal(batchRollout.target, outside.id);
  const denied = (await audit(api, "firmware_rollout.create")).filter((e) => e.result === "denied");
  assert.ok(denied.some((e) => e.principalId === "scopedSup"));
  assert.ok(denied.some((e) => e.principalId === "skuSup"));
  // Reads follow the same scope: scopedSup sees none of these, 404 on the status.
  const seen = expectStatus(await as(api, "scopedSup").get(`/rollouts?buildId=${build.id}`), 200);
  assertEquals(seen.items, []);
  expectError(await as(api, "scopedSup").get(`/rollouts/${batchRollout.id}/status`), 404);
  expectError(await as(api, "scopedSup").post(`/rollouts/${batchRollout.id}:pause`), 403);
  const all = expectStatus(await as(api, "aud").get(`/rollouts?buildId=${build.id}`), 200);
  assertEquals(all.total, 2);
});

suite.test(
  "pause and resume: supervisor only, audited; status counts versions per batch",
  async (api, server) => {
    const build = await newBuild(api, { skus: "SKU-A" });
    const batch = await createBatch(api, { sku: "SKU-A" });
    const devices = [];
    for (let i = 0; i < 3; i++) devices.push(await registerDevice(api, batch.id));
    const db = server.app.services.db;
    await db.updateTable("devices").set({ firmware: build.version }).where("id", "=", devices[0].id)
      .execute();
    await db.updateTable("devices").set({ firmware: "1.0.0" }).where("id", "=", devices[1].id)
      .execute();
    const rollout = expectStatus(await assign(api, "sup", build.id, "batch", batch.id), 201);
    for (const who of ["op", "aud"] as const) {
      expectError(await as(api, who).post(`/rollouts/${rollout.id}:pause`), 403);
      expectError(await as(api, who).post(`/rollouts/${rollout.id}:resume`), 403);
    }
    const paused = expectStatus(await as(api, "sup").post(`/rollouts/${rollout.id}:pause`), 200);
    assert.equal(paused.status, "paused");
    // Again: nothing changes, nothing more audited.
    expectStatus(await as(api, "sup").post(`/rollouts/${rollout.id}:pause`), 200);
    const pauses = (await audit(api, "firmware_rollout.pause"))
      .filter((e) => e.result === "success" && e.detail.rolloutId === rollout.id);
    assert.equal(pauses.length, 1);
    assert.equal(
      expectStatus(await as(api, "sup").get(`/rollouts?status=paused&buildId=${build.id}`), 200)
        .total,
      1,
    );
    const resumed = expectStatus(await as(api, "sup").post(`/rollouts/${rollout.id}:resume`), 200);
    assert.equal(resumed.status, "active");
    assert.ok(
      (await audit(api, "firmware_rollout.resume")).some((e) => e.detail.rolloutId === rollout.id),
    );
    expectError(await as(api, "sup").post(`/rollouts/${crypto.randomUUID()}:pause`), 404);

    for (const who of ["sup", "op", "aud"] as const) {
      const status = expectStatus(await as(api, who).get(`/rollouts/${rollout.id}/status`), 200);
      assertEquals([status.total, status.updated], [3, 1]);
      const byVersion = Object.fromEntries(
        status.versions.map((
          v: { version: string | null; devices: number },
        ) => [v.version, v.devices]),
      );
      assertEquals(byVersion, { [build.version]: 1, "1.0.0": 1, null: 1 });
    }
    // The factory's device view shows the version each device reports.
    const view = expectStatus(await as(api, "op").get(`/devices/${devices[1].id}`), 200);
    assert.equal(view.firmware, "1.0.0");
  },
);

suite.test(
  "status per batch: a SKU rollout's progress in one batch; a batch out of scope is 404",
  async (api, server) => {
    const build = await newBuild(api, { skus: "SKU-A" });
    const rollout = expectStatus(await assign(api, "sup", build.id, "sku", "SKU-A"), 201);
    const one = await createBatch(api, { sku: "SKU-A" });
    const two = await createBatch(api, { sku: "SKU-A" });
    const other = await createBatch(api, { sku: "SKU-B" });
    const db = server.app.services.db;
    for (const [batch, version] of [[one, build.version], [one, "0.1"], [two, "0.1"]] as const) {
      const device = await registerDevice(api, batch.id);
      await db.updateTable("devices").set({ firmware: version }).where("id", "=", device.id)
        .execute();
    }
    const status = expectStatus(
      await as(api, "aud").get(`/rollouts/${rollout.id}/status?batchId=${one.id}`),
      200,
    );
    assertEquals([status.total, status.updated], [2, 1]);
    const second = expectStatus(
      await as(api, "skuAud").get(`/rollouts/${rollout.id}/status?batchId=${two.id}`),
      200,
    );
    assertEquals([second.total, second.updated], [1, 0]);
    expectError(
      await as(api, "skuAud").get(`/rollouts/${rollout.id}/status?batchId=${other.id}`),
      404,
    );
    expectError(await as(api, "aud").get(`/rollouts/${rollout.id}/status?batchId=nope`), 400);
    // No token: 401 on every registry endpoint.
    for (const path of ["/rollouts", `/rollouts/${rollout.id}/status`]) {
      expectError(await api.get(`/internal/factory${path}`), 401);
    }
    for (const path of [`/rollouts/${rollout.id}:pause`, `/rollouts/${rollout.id}:resume`]) {
      expectError(await api.post(`/internal/factory${path}`), 401);
    }
    expectError(
      await api.post(`/internal/factory/firmware/${build.id}/rollouts`, {
        body: { targetKind: "sku", target: "SKU-A" },
      }),
      401,
    );
  },
);

// ---- displays -----------------------------------------------------------------------------------

suite.test("display: an active rollout of its model is offered once a day, with a signed URL", async (api) => {
  const model = unique("og-");
  const file = new Uint8Array(1000).map((_, i) => (i * 7) & 0xff);
  const build = await newBuild(api, { models: model }, file);
  const display = await claimedDisplay(api, "B4");
  // No rollout yet: nothing offered.
  let reply = expectStatus(await poll(api, display, model, "1.6.2"), 200);
  assertEquals([reply.update_firmware, reply.firmware_url], [false, null]);
  expectStatus(await assign(api, "sup", build.id, "model", model), 201);
  // No FW-Version header: nothing offered (it could never report the update).
  const noVersion = expectStatus(
    await api.get("/api/display", {
      headers: { ID: display.mac, "Access-Token": display.key, Model: model },
    }),
    200,
  );
  assertEquals([noVersion.update_firmware, noVersion.firmware_url], [false, null]);
  // Already on the build's version: nothing offered.
  reply = expectStatus(await poll(api, display, model, build.version), 200);
  assertEquals([reply.update_firmware, reply.firmware_url], [false, null]);
  reply = expectStatus(await poll(api, display, model, "1.6.2"), 200);
  assert.equal(reply.update_firmware, true);
  assert.equal(reply.status, 0);
  assert.equal(reply.reset_firmware, false);
  const res = await fetchChecked(reply.firmware_url);
  assert.equal(res.status, 200);
  assertEquals(new Uint8Array(await res.arrayBuffer()), file);
  // The firmware retries at most once a day; so does the offer.
  reply = expectStatus(await poll(api, display, model, "1.6.2"), 200);
  assertEquals([reply.update_firmware, reply.firmware_url], [false, null]);
  // Health shows the version the display reports.
  const health = expectStatus(
    await api.get(`/api/devices/${display.device.id}/health`, { token: display.user.accessToken }),
    200,
  );
  assert.equal(health.firmware, "1.6.2");
});

suite.test("display: a paused rollout or another model offers nothing", async (api) => {
  const model = unique("og-");
  const build = await newBuild(api, { models: model });
  const rollout = expectStatus(await assign(api, "sup", build.id, "model", model), 201);
  expectStatus(await as(api, "sup").post(`/rollouts/${rollout.id}:pause`), 200);
  const display = await claimedDisplay(api, "B4");
  let reply = expectStatus(await poll(api, display, model, "1.6.2"), 200);
  assert.equal(reply.update_firmware, false);
  reply = expectStatus(await poll(api, display, unique("other-"), "1.6.2"), 200);
  assert.equal(reply.update_firmware, false);
  expectStatus(await as(api, "sup").post(`/rollouts/${rollout.id}:resume`), 200);
  reply = expectStatus(await poll(api, display, model, "1.6.2"), 200);
  assert.equal(reply.update_firmware, true);
});

suite.test("hold: the owner holds updates; another user is 403, no token 401", async (api) => {
  const model = unique("og-");
  const build = await newBuild(api, { models: model });
  expectStatus(await assign(api, "sup", build.id, "model", model), 201);
  const display = await claimedDisplay(api, "B4");
  const path = `/api/devices/${display.device.id}/firmware-hold`;
  const token = display.user.accessToken;
  assertEquals(expectStatus(await api.get(path, { token }), 200), {
    held: false,
    lastOfferAt: null,
  });
  const other = await registerUser(api);
  expectError(await api.put(path, { token: other.accessToken, body: { held: true } }), 403);
  expectError(await api.get(path, { token: other.accessToken }), 403);
  expectError(await api.put(path, { body: { held: true } }), 401);
  expectError(await api.put(path, { token, body: { held: "yes" } }), 400);
  expectError(
    await api.put(`/api/devices/${crypto.randomUUID()}/firmware-hold`, {
      token,
      body: { held: true },
    }),
    404,
  );
  expectError(await api.put(path, { token: tokenOf("sup"), body: { held: true } }), 401);
  assert.equal(expectStatus(await api.put(path, { token, body: { held: true } }), 200).held, true);
  let reply = expectStatus(await poll(api, display, model, "1.6.2"), 200);
  assert.equal(reply.update_firmware, false);
  assert.equal(
    expectStatus(await api.put(path, { token, body: { held: false } }), 200).held,
    false,
  );
  reply = expectStatus(await poll(api, display, model, "1.6.2"), 200);
  assert.equal(reply.update_firmware, true);
  const after = expectStatus(await api.get(path, { token }), 200);
  assert.ok(after.lastOfferAt !== null);
});

suite.test("hold: a device that leaves its owner loses the hold", async (api, server) => {
  const display = await claimedDisplay(api, "B4");
  const path = `/api/devices/${display.device.id}/firmware-hold`;
  const token = display.user.accessToken;
  expectStatus(await api.put(path, { token, body: { held: true } }), 200);
  expectStatus(await api.post(`/api/devices/${display.device.id}/unbind`, { token }), 200);
  const row = await server.app.services.db.selectFrom("device_firmware").selectAll()
    .where("device_id", "=", display.device.id).executeTakeFirstOrThrow();
  assert.equal(row.held, false);
});

// ---- MQTT devices -------------------------------------------------------------------------------

suite.test(
  "mqtt: a device reporting another version gets one firmware command on down/cmd",
  async (api, server) => {
    const file = new Uint8Array(2048).map((_, i) => (i * 3) & 0xff);
    const sku = unique("SKU-M");
    const build = await newBuild(api, { skus: sku }, file);
    const batch = await createBatch(api, { sku });
    const owner = await registerUser(api);
    const device = await createDevice(server, owner.user.id);
    const db = server.app.services.db;
    await db.updateTable("devices").set({ batch_id: batch.id, sku }).where("id", "=", device.id)
      .execute();
    expectStatus(await assign(api, "sup", build.id, "batch", batch.id), 201);
    const sim = await connectDevice(server.app.mqttUrl, device.thingName);
    try {
      await sim.send("up/heartbeat", { firmware: "0.9.0" });
      const command = await sim.next("down/cmd", (b) => b.kind === "firmware");
      assertEquals([command.version, command.sha256, command.size], [
        build.version,
        build.sha256,
        2048,
      ]);
      assert.match(command.id, /^[0-9a-f-]{36}$/);
      const res = await fetchChecked(command.url);
      assertEquals(new Uint8Array(await res.arrayBuffer()), file);
      // At most once a day: the next report offers nothing.
      const before = await db.selectFrom("device_firmware").selectAll()
        .where("device_id", "=", device.id).executeTakeFirstOrThrow();
      await server.app.services.devices.heartbeat(device.thingName, { firmware: "0.9.0" });
      const after = await db.selectFrom("device_firmware").selectAll()
        .where("device_id", "=", device.id).executeTakeFirstOrThrow();
      assertEquals(after.offered_at, before.offered_at);
      // The version shows in health and in the factory's device view and rollout status.
      assert.equal((await deviceRow(server, device.id)).firmware, "0.9.0");
      const view = expectStatus(await as(api, "aud").get(`/devices/${device.id}`), 200);
      assert.equal(view.firmware, "0.9.0");
    } finally {
      await sim.close();
    }
  },
);

suite.test(
  "mqtt: no command for a device on the build's version, held, or outside the rollout",
  async (api, server) => {
    const sku = unique("SKU-N");
    const build = await newBuild(api, { skus: sku });
    expectStatus(await assign(api, "sup", build.id, "sku", sku), 201);
    const owner = await registerUser(api);
    const updates = server.app.services.firmwareUpdates;
    const fit = (id: string, thingName: string, firmware: string | null, theSku = sku) => ({
      id,
      thingName,
      batchId: null,
      sku: theSku,
      model: null,
      firmware,
    });
    const a = await createDevice(server, owner.user.id);
    assertEquals(await updates.forMqtt(fit(a.id, a.thingName, build.version)), null);
    assertEquals(await updates.forMqtt(fit(a.id, a.thingName, "0.1", unique("other"))), null);
    const b = await createDevice(server, owner.user.id);
    expectStatus(
      await api.put(`/api/devices/${b.id}/firmware-hold`, {
        token: owner.accessToken,
        body: { held: true },
      }),
      200,
    );
    assertEquals(await updates.forMqtt(fit(b.id, b.thingName, "0.1")), null);
    const c = await createDevice(server, owner.user.id);
    const command = await updates.forMqtt(fit(c.id, c.thingName, "0.1"));
    assertEquals(command?.kind, "firmware");
  },
);

suite.end();
