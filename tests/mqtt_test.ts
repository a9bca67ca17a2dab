/**
 * CONTRACT.md "MQTT topics" over a real broker: the embedded one by default, Mosquitto with
 * MQTT_URL. Device reports update the device; get_push / refresh_push follow the HTTP rules.
 */
import mqtt from "mqtt";
import { encodeBase64 } from "@oslojs/encoding";
import { assert, assertEquals, expectStatus } from "./helpers/assert.ts";
import { registerUser } from "./helpers/http.ts";
import { serverSuite } from "./helpers/suite.ts";
import { fetchChecked } from "./helpers/openapi.ts";
import {
  createDevice,
  deviceRow,
  insertPush,
  mqttPassword,
  mqttPasswordOf,
  pushRow,
} from "./helpers/devices.ts";
import { connectDevice, eventually } from "./helpers/mqtt.ts";
import {
  as,
  createBatch,
  factoryEnv,
  provisionedDevice,
  registerDevice,
} from "./helpers/factory.ts";
import { externalMqttUrl } from "./helpers/server.ts";
import { runDeviceSim, simOptionsFromArgs } from "../tools/device_sim.ts";
import { statusOf } from "../src/client.ts";
import { UP_CHANNELS } from "../src/infra/mqtt/topics.ts";
import { MAX_UP_PAYLOAD_BYTES } from "../src/infra/mqtt/gateway.ts";

// A configured MQTT_DEVICE_KEY (the other suites use the generated one).
const DEVICE_KEY = encodeBase64(new Uint8Array(32).map((_, i) => (i * 13 + 5) & 0xff));
const suite = serverSuite("mqtt", factoryEnv({ MQTT_DEVICE_KEY: DEVICE_KEY }));

/** Clears a device's retained status, so servers started later on a shared broker start clean. */
async function clearRetained(url: string, thingName: string) {
  const cleaner = await mqtt.connectAsync(url, {
    clientId: thingName,
    username: thingName,
    password: mqttPasswordOf(thingName),
    protocolVersion: 4,
    reconnectPeriod: 0,
  });
  await cleaner.publishAsync(`devices/${thingName}/up/status`, "", { qos: 1, retain: true });
  await cleaner.endAsync();
}

suite.test("state, heartbeat and status reports update the device", async (api, s) => {
  const alice = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  const sim = await connectDevice(s.app.mqttUrl, d.thingName);
  try {
    await sim.send("up/state", { screen: "on", battery: 77, firmware: "3.1.0" });
    const row = await eventually(async () => {
      const r = await deviceRow(s, d.id);
      return r.state_updated_at ? r : null;
    }, "state");
    assertEquals(row.state, { screen: "on", battery: 77, firmware: "3.1.0" });
    assertEquals([row.battery, row.firmware], [77, "3.1.0"]);
    const health = expectStatus(
      await api.get(`/api/devices/${d.id}/health`, { token: alice.accessToken }),
      200,
    );
    assertEquals(JSON.parse(health.state), { screen: "on", battery: 77, firmware: "3.1.0" });

    await sim.send("up/status", "offline");
    await eventually(async () => (await deviceRow(s, d.id)).last_status === "offline", "offline");
    // Backdate the last sighting: offline and no recent heartbeat means offline.
    await s.app.services.db.updateTable("devices")
      .set({ last_seen_at: new Date(Date.now() - 10 * 60_000) }).where("id", "=", d.id).execute();
    let device = expectStatus(
      await api.get(`/api/devices/${d.id}`, { token: alice.accessToken }),
      200,
    );
    assert.equal(device.online, false);

    await sim.send("up/heartbeat", { battery: 12 });
    await eventually(async () => (await deviceRow(s, d.id)).battery === 12, "heartbeat");
    device = expectStatus(await api.get(`/api/devices/${d.id}`, { token: alice.accessToken }), 200);
    assert.equal(device.online, true);
    assert.ok(Date.now() - Date.parse(device.lastSeenAt) < 60_000);

    await sim.send("up/status", "online");
    await eventually(async () => (await deviceRow(s, d.id)).last_status === "online", "online");
  } finally {
    await sim.close();
  }
});

suite.test("the last will marks a vanished device offline", async (api, s) => {
  const alice = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  const client = await mqtt.connectAsync(s.app.mqttUrl, {
    clientId: d.thingName,
    username: d.thingName,
    password: d.mqttPassword,
    protocolVersion: 4,
    reconnectPeriod: 0,
    will: { topic: `devices/${d.thingName}/up/status`, payload: "offline", qos: 1, retain: true },
  });
  await client.publishAsync(`devices/${d.thingName}/up/status`, "online", { qos: 1, retain: true });
  await eventually(async () => (await deviceRow(s, d.id)).last_status === "online", "online");
  client.stream.destroy();
  await eventually(async () => (await deviceRow(s, d.id)).last_status === "offline", "will");
  await client.endAsync(true);
  await clearRetained(s.app.mqttUrl, d.thingName);
});

suite.test("get_push / refresh_push / confirm follow the HTTP rules", async (api, s) => {
  const alice = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  const sim = await connectDevice(s.app.mqttUrl, d.thingName);
  try {
    await sim.send("up/get_push", {});
    assertEquals(await sim.next("down/push"), { error: "no_push" });
    const a = await insertPush(s, d, alice.user.id, { priority: 2 });
    const b = await insertPush(s, d, alice.user.id, { priority: 1 });
    await sim.send("up/get_push", { format: "raw2" });
    const first = await sim.next("down/push");
    assertEquals([first.pushId, first.status, first.changed], [a, "PUBLISHED", true]);
    assert.match(first.url, /image2\.raw/);
    const bytes = new Uint8Array(await (await fetchChecked(first.url)).arrayBuffer());
    assert.equal(bytes.byteLength, 48000);
    await sim.send("up/get_push", "");
    const again = await sim.next("down/push");
    assertEquals([again.pushId, again.changed], [a, false]);
    assert.match(again.url, /image\.png/);
    await sim.send("up/confirm", { pushId: a });
    await eventually(async () => (await pushRow(s, a)).status === "CONFIRMED", "confirm");
    await sim.send("up/refresh_push", { format: "raw4" });
    const next = await sim.next("down/push");
    assertEquals([next.pushId, next.status, next.changed], [b, "PUBLISHED", true]);
    assert.match(next.url, /image4\.raw/);
    assert.equal((await pushRow(s, a)).status, "EXPIRED");
    await sim.send("up/refresh_push", {});
    const same = await sim.next("down/push");
    assertEquals([same.pushId, same.changed], [b, false]);
    // A confirm for a push of another device changes nothing.
    const other = await createDevice(s, alice.user.id);
    const foreign = await insertPush(s, other, alice.user.id, { status: "PUBLISHED" });
    await sim.send("up/confirm", { pushId: foreign });
    await sim.send("up/get_push", {});
    await sim.next("down/push");
    assert.equal((await pushRow(s, foreign)).status, "PUBLISHED");
  } finally {
    await sim.close();
  }
});

suite.test("an unbound device gets no_push", async (_api, s) => {
  const d = await createDevice(s);
  const sim = await connectDevice(s.app.mqttUrl, d.thingName);
  try {
    await sim.send("up/get_push", {});
    assertEquals(await sim.next("down/push"), { error: "no_push" });
  } finally {
    await sim.close();
  }
});

suite.test(
  "device-sim fetches the current push, saves the bitmap and confirms it",
  async (api, s) => {
    const alice = await registerUser(api);
    const d = await createDevice(s, alice.user.id);
    const pushId = await insertPush(s, d, alice.user.id);
    const outDir = await Deno.makeTempDir({ prefix: "dds-sim-" });
    try {
      const result = await runDeviceSim({
        thing: d.thingName,
        password: d.mqttPassword,
        mqttUrl: s.app.mqttUrl,
        format: "raw2",
        outDir,
        heartbeatSeconds: 60,
        once: true,
        log: () => {},
      });
      assertEquals([result.pushId, result.bytes], [pushId, 48000]);
      assert.equal((await Deno.stat(result.file!)).size, 48000);
      await eventually(async () => (await pushRow(s, pushId)).status === "CONFIRMED", "confirm");
      const row = await deviceRow(s, d.id);
      assertEquals([row.battery, row.firmware], [100, "sim-1.0"]);
    } finally {
      await Deno.remove(outDir, { recursive: true });
      await clearRetained(s.app.mqttUrl, d.thingName);
    }
  },
);

suite.test(
  "device-sim --bind-token binds its device through the typed client; a bad token binds nothing",
  async (api, s) => {
    const alice = await registerUser(api);
    const { device, file } = await provisionedDevice(api);
    const dir = await Deno.makeTempDir({ prefix: "dds-sim-bind-" });
    const path = `${dir}/device.nfc.json`;
    await Deno.writeTextFile(path, JSON.stringify(file));
    const config = { dataDir: dir, mqtt: { url: s.app.mqttUrl, port: 0, deviceKey: undefined } };
    const run = async (token: string) => {
      const options = await simOptionsFromArgs(
        ["--nfc", path, "--bind-token", token, "--api", s.url, "--once"],
        config,
      );
      const lines: string[] = [];
      await runDeviceSim({ ...options!, log: (l) => lines.push(l) });
      return lines;
    };
    try {
      // Refused twin first: an invalid token is 401 and the device stays unbound.
      let refused: unknown;
      await run("not-a-token").catch((error) => (refused = error));
      assertEquals(statusOf(refused), 401);
      assertEquals(
        expectStatus(await api.get("/api/devices", { token: alice.accessToken }), 200),
        [],
      );
      const lines = await run(alice.accessToken);
      assertEquals(lines[0], `bound as device ${device.id}`);
      const mine = expectStatus(await api.get("/api/devices", { token: alice.accessToken }), 200);
      assertEquals(mine.map((d: { id: string }) => d.id), [device.id]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

if (!externalMqttUrl) {
  suite.test(
    "embedded broker: a factory device logs in with the secret of its current credential only",
    async (api, s) => {
      const device = await registerDevice(api, (await createBatch(api)).id);
      const thing = device.thingName;
      const attempt = async (password?: string) => {
        try {
          const c = await mqtt.connectAsync(s.app.mqttUrl, {
            clientId: thing,
            username: thing,
            password,
            protocolVersion: 4,
            reconnectPeriod: 0,
          });
          await c.endAsync(true);
          return "accepted";
        } catch {
          return "refused";
        }
      };
      const v1 = await mqttPassword(s, thing, 1);
      // Registered, but no credential (and so no secret) issued yet.
      assertEquals(await attempt(v1), "refused");
      const credential = expectStatus(
        await as(api, "sup").post(`/devices/${device.id}/nfc-files`),
        201,
      );
      // Issue 16: the thing name is printed on the tag; knowing it is no longer enough.
      assertEquals(await attempt(undefined), "refused");
      assertEquals(await attempt("not-the-secret"), "refused");
      assertEquals(await attempt(v1), "accepted");
      // The production line gets the same secret in the device's file (CONTRACT.md).
      const file = expectStatus(
        await as(api, "sup").get(`/nfc-files/${credential.id}/download`),
        200,
      );
      if (file.mqttPassword !== undefined) assertEquals(file.mqttPassword, v1);
      expectStatus(
        await as(api, "sup").post(`/devices/${device.id}/nfc-credentials:revoke-and-reissue`),
        200,
      );
      assertEquals(await attempt(v1), "refused");
      assertEquals(await attempt(await mqttPassword(s, thing, 2)), "accepted");
    },
  );

  suite.test("embedded broker confines a device to its own topics", async (api, s) => {
    const alice = await registerUser(api);
    const mine = await createDevice(s, alice.user.id);
    const theirs = await createDevice(s, alice.user.id);
    const sim = await connectDevice(s.app.mqttUrl, mine.thingName);
    try {
      // A refused subscription comes back with return code 0x80 (mqtt.js rejects on it).
      for (const topic of [`devices/${theirs.thingName}/down/#`, "devices/+/down/#", "#"]) {
        await assert.rejects(sim.client.subscribeAsync(topic, { qos: 1 }), /Subscribe error/);
      }
      // Publishing as another device is dropped (and the publisher disconnected).
      await sim.client.publishAsync(`devices/${theirs.thingName}/up/state`, '{"spoofed":true}', {
        qos: 0,
      }).catch(() => {});
    } finally {
      await sim.close();
    }
    const again = await connectDevice(s.app.mqttUrl, mine.thingName);
    try {
      await again.send("up/state", { mine: true });
      await eventually(async () => (await deviceRow(s, mine.id)).state_updated_at, "own state");
      assert.equal((await deviceRow(s, theirs.id)).state, null);
    } finally {
      await again.close();
    }
  });
}

suite.test("malformed payloads on every up channel are ignored, never an error", async (api, s) => {
  const alice = await registerUser(api);
  const d = await createDevice(s, alice.user.id);
  const errors: unknown[] = [];
  const logger = s.app.logger;
  const error = logger.error;
  logger.error = (msg, fields) => errors.push({ msg, fields });
  const sim = await connectDevice(s.app.mqttUrl, d.thingName);
  try {
    const deep = "[".repeat(40) + "]".repeat(40);
    const payloads: Array<string | Uint8Array> = [
      '{"a":',
      new Uint8Array([0xff, 0x00, 0xfe, 0x80]),
      "null",
      "42",
      "[]",
      '"online"',
      "online",
      '{"pushId":5,"format":{"x":1}}',
      '{"pushId":"not-a-uuid"}',
      '{"battery":"full","firmware":123}',
      '{"battery":1e308,"firmware":"a\\u0000b"}',
      '{"text":"a\\u0000b"}',
      '{"text":"\\ud800"}',
      '{"a\\u0000":1}',
      `{"deep":${deep}}`,
      '{"__proto__":{"polluted":true}}',
      "",
    ];
    // In small batches, each followed by a heartbeat marker the test waits for: a device's
    // messages are handled in order, and a flood past the per-device backlog would be dropped.
    let marker = 0;
    for (const channel of UP_CHANNELS) {
      for (let i = 0; i < payloads.length; i += 8) {
        for (const payload of payloads.slice(i, i + 8)) {
          await sim.client.publishAsync(`devices/${d.thingName}/${channel}`, payload as string, {
            qos: 1,
          });
        }
        const battery = ++marker;
        await sim.send("up/heartbeat", { battery });
        await eventually(async () => (await deviceRow(s, d.id)).battery === battery, "marker");
      }
    }
    // A good report after all of them is handled: the handlers are still alive.
    await sim.send("up/state", { ok: true, battery: 33, firmware: "1.2.3" });
    const row = await eventually(async () => {
      const r = await deviceRow(s, d.id);
      return (r.state as { ok?: boolean } | null)?.ok ? r : null;
    }, "the good state");
    assertEquals(row.state, { ok: true, battery: 33, firmware: "1.2.3" });
    assertEquals(({} as Record<string, unknown>).polluted, undefined);
    // get_push answered every garbage request with no_push rather than failing.
    assertEquals(await sim.next("down/push"), { error: "no_push" });
    assertEquals(errors, []);
  } finally {
    logger.error = error;
    await sim.close();
  }
  // Over the size limit: the embedded broker drops the connection, an external broker's message
  // is dropped by the service; either way nothing is stored.
  const big = await connectDevice(s.app.mqttUrl, d.thingName);
  const huge = JSON.stringify({ pad: "x".repeat(MAX_UP_PAYLOAD_BYTES) });
  big.client.publish(`devices/${d.thingName}/up/state`, huge, { qos: 0 });
  await new Promise((r) => setTimeout(r, 500));
  await big.close();
  const after = await connectDevice(s.app.mqttUrl, d.thingName);
  try {
    await after.send("up/state", { after: true });
    const row = await eventually(async () => {
      const r = await deviceRow(s, d.id);
      return (r.state as { after?: boolean } | null)?.after ? r : null;
    }, "the state after");
    assertEquals(row.state, { after: true });
  } finally {
    await after.close();
  }
});

Deno.test("device-sim reads its thing name and MQTT password from a .nfc.json file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dds-sim-args-" });
  try {
    const file = `${dir}/device.nfc.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({ thingName: "dds-abc", mqttPassword: "s3cret" }),
    );
    const config = { dataDir: dir, mqtt: { url: undefined, port: 1884, deviceKey: undefined } };
    const fromFile = await simOptionsFromArgs(["--nfc", file, "--once"], config);
    assertEquals([fromFile?.thing, fromFile?.password, fromFile?.mqttUrl, fromFile?.once], [
      "dds-abc",
      "s3cret",
      "mqtt://127.0.0.1:1884",
      true,
    ]);
    const flags = await simOptionsFromArgs(
      ["--nfc", file, "--thing", "dds-x", "--password", "other"],
      config,
    );
    assertEquals([flags?.thing, flags?.password], ["dds-x", "other"]);
    assertEquals(await simOptionsFromArgs(["--once"], config), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

suite.end();
