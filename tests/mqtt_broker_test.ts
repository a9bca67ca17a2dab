// deno-lint-ignore-file no-explicit-any -- messages are untyped JSON; tests assert their shape
/**
 * The embedded broker as an attacker meets it (CONTRACT.md "MQTT topics", issues 16 and 8): who
 * may log in, which topics a device reaches, and what it can make the broker hold. The broker
 * runs alone here with a fixed device key and a credential table the test controls, so these
 * run the same on both setups.
 */
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import type { EventEmitter } from "node:events";
import { assert, assertEquals } from "./helpers/assert.ts";
import { eventually } from "./helpers/mqtt.ts";
import {
  type EmbeddedBroker,
  MAX_DEVICE_SUBSCRIPTIONS,
  MAX_PACKET_BYTES,
  SERVICE_USERNAME,
  startEmbeddedBroker,
} from "../src/infra/mqtt/broker.ts";
import { deviceMqttPassword } from "../src/infra/mqtt/device_secret.ts";

const SECRET = "broker-test-service-secret";
const KEY = new Uint8Array(32).fill(9);
const options = { sanitizeOps: false, sanitizeResources: false };

/** A broker whose credential table is `versions` (mutable: a test may reissue). */
async function broker(versions: Record<string, number>, extra: { recheckMs?: number } = {}) {
  const errors: unknown[] = [];
  const b = await startEmbeddedBroker({
    port: 0,
    host: "127.0.0.1",
    serviceSecret: SECRET,
    deviceKey: KEY,
    credentialVersions: (names) =>
      Promise.resolve(new Map(names.filter((n) => n in versions).map((n) => [n, versions[n]]))),
    onError: (error) => errors.push(error),
    ...extra,
  });
  return { b, url: `mqtt://127.0.0.1:${b.port}`, errors };
}

const password = (thing: string, version = 1) => deviceMqttPassword(KEY, thing, version);

function connect(url: string, o: IClientOptions): Promise<MqttClient> {
  return mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, ...o });
}

/** Connects as a device with its current password. */
const device = (url: string, thing: string, version = 1, o: IClientOptions = {}) =>
  connect(url, { clientId: thing, username: thing, password: password(thing, version), ...o });

/** The service's own client, subscribed to every topic a device could reach but `$SYS`. */
async function service(url: string) {
  const client = await connect(url, {
    clientId: "dds-service-test",
    username: SERVICE_USERNAME,
    password: SECRET,
  });
  const seen: Array<{ topic: string; payload: string; retain: boolean }> = [];
  client.on("message", (topic, payload, packet) => {
    seen.push({ topic, payload: payload.toString(), retain: packet.retain });
  });
  await client.subscribeAsync("#", { qos: 1 });
  return { client, seen };
}

async function refused(url: string, o: IClientOptions): Promise<boolean> {
  try {
    const c = await connect(url, { connectTimeout: 3_000, ...o });
    await c.endAsync(true);
    return false;
  } catch {
    return true;
  }
}

/** Resolves true when the broker closes the client within `ms`. */
function closedWithin(client: MqttClient, ms = 2_000): Promise<boolean> {
  if (!client.connected) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    client.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function withBroker(
  versions: Record<string, number>,
  fn: (url: string, b: EmbeddedBroker, errors: unknown[]) => Promise<void>,
  extra: { recheckMs?: number } = {},
) {
  const { b, url, errors } = await broker(versions, extra);
  try {
    await fn(url, b, errors);
  } finally {
    await b.close();
  }
}

Deno.test({
  name: "broker: a device logs in only with its secret of its current credential version",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 2, "thing-b": 1, "thing-new": 0 }, async (url) => {
      const a = "thing-a";
      // Issue 16: the thing name alone (printed on the NFC tag) is no longer enough.
      assert.ok(await refused(url, { clientId: a, username: a }));
      assert.ok(await refused(url, { clientId: a, username: a, password: "" }));
      assert.ok(await refused(url, { clientId: a, username: a, password: "wrong" }));
      assert.ok(await refused(url, { clientId: a, username: a, password: password(a, 1) }));
      assert.ok(await refused(url, { clientId: a, username: a, password: password("thing-b") }));
      assert.ok(await refused(url, { clientId: a, username: "thing-b", password: password(a, 2) }));
      assert.ok(await refused(url, { clientId: a }));
      // Unknown thing, and a registered thing whose credential was never issued.
      const ghost = "thing-ghost";
      assert.ok(
        await refused(url, { clientId: ghost, username: ghost, password: password(ghost) }),
      );
      const fresh = "thing-new";
      for (const v of [0, 1]) {
        assert.ok(
          await refused(url, { clientId: fresh, username: fresh, password: password(fresh, v) }),
        );
      }
      // The service's name with anything but the service secret, a device's secret included.
      assert.ok(
        await refused(url, { clientId: "x", username: SERVICE_USERNAME, password: "guess" }),
      );
      assert.ok(
        await refused(url, { clientId: a, username: SERVICE_USERNAME, password: password(a, 2) }),
      );
      assert.ok(!(await refused(url, { clientId: a, username: a, password: password(a, 2) })));
    }),
});

Deno.test({
  name: "broker: a wrong password cannot take over a connected device's client id",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 1, "thing-b": 1 }, async (url) => {
      const a = await device(url, "thing-a");
      try {
        assert.ok(await refused(url, { clientId: "thing-a", username: "thing-a", password: "x" }));
        assert.ok(
          await refused(url, {
            clientId: "thing-a",
            username: "thing-b",
            password: password("thing-b"),
          }),
        );
        // The real device is still connected and its session works.
        assert.ok(a.connected);
        await a.publishAsync("devices/thing-a/up/heartbeat", "{}", { qos: 1 });
      } finally {
        await a.endAsync(true);
      }
    }),
});

Deno.test({
  name: "broker: revoke-and-reissue ends the session of the old credential and refuses it after",
  ...options,
  fn: async () => {
    const versions: Record<string, number> = { "thing-a": 1 };
    await withBroker(versions, async (url, b) => {
      const old = await device(url, "thing-a", 1);
      const closed = closedWithin(old, 5_000);
      versions["thing-a"] = 2;
      await b.recheckCredentials();
      assert.ok(await closed, "the device on the revoked credential is disconnected");
      await old.endAsync(true);
      assert.ok(
        await refused(url, {
          clientId: "thing-a",
          username: "thing-a",
          password: password("thing-a", 1),
        }),
      );
      const renewed = await device(url, "thing-a", 2);
      await b.recheckCredentials();
      assert.ok(renewed.connected, "a current credential survives the recheck");
      await renewed.endAsync(true);
    });
    // Without a call: the broker's own timer does it.
    const timed: Record<string, number> = { "thing-a": 1 };
    await withBroker(timed, async (url) => {
      const old = await device(url, "thing-a", 1);
      timed["thing-a"] = 2;
      assert.ok(await closedWithin(old, 3_000));
      await old.endAsync(true);
    }, { recheckMs: 100 });
  },
});

Deno.test({
  name: "broker: a device publishes only on its own up channels and retains only its status",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 1, "thing-b": 1 }, async (url) => {
      const svc = await service(url);
      try {
        const forbidden: Array<[string, boolean]> = [
          ["devices/thing-b/up/state", false], // another device
          ["devices/thing-a/down/cmd", false], // the service's direction
          ["devices/thing-a/up/state/deeper", false],
          ["devices/thing-a/up/unknown", false],
          ["devices/thing-a/up/../../thing-b/up/state", false],
          ["devices/thing-a", false],
          ["$SYS/broker/fake", false],
          ["other/topic", false],
          ["devices/thing-a/up/state", true], // retained, but only up/status may be
          ["devices/thing-a/up/heartbeat", true],
        ];
        for (const [topic, retain] of forbidden) {
          const c = await device(url, "thing-a");
          const closed = closedWithin(c);
          c.publish(topic, '{"spoofed":true}', { qos: 0, retain });
          assert.ok(await closed, `${topic} (retain ${retain}) is refused with a disconnect`);
          await c.endAsync(true);
        }
        const ok = await device(url, "thing-a");
        await ok.publishAsync("devices/thing-a/up/state", '{"mine":true}', { qos: 1 });
        await ok.publishAsync("devices/thing-a/up/status", "online", { qos: 1, retain: true });
        await ok.endAsync(true);
        await eventually(
          () => Promise.resolve(svc.seen.some((m) => m.topic === "devices/thing-a/up/status")),
          "own status",
        );
        assertEquals(svc.seen.map((m) => m.topic), [
          "devices/thing-a/up/state",
          "devices/thing-a/up/status",
        ]);
        assert.ok(!svc.seen.some((m) => m.payload.includes("spoofed")));
        // The broker retained the status and nothing else.
        const late = await service(url);
        await eventually(() => Promise.resolve(late.seen.length > 0), "retained");
        await new Promise((r) => setTimeout(r, 200));
        assertEquals(
          late.seen.filter((m) => m.retain).map((m) => [m.topic, m.payload]),
          [["devices/thing-a/up/status", "online"]],
        );
        await late.client.endAsync(true);
      } finally {
        await svc.client.endAsync(true);
      }
    }),
});

Deno.test({
  name: "broker: a device subscribes only under its own prefix, and to a few filters",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 1, "thing-b": 1 }, async (url) => {
      const a = await device(url, "thing-a");
      try {
        for (
          const topic of [
            "#",
            "+/#",
            "+/+/+/+",
            "devices/#",
            "devices/+/down/#",
            "devices/+/up/#",
            "devices/thing-b/#",
            "devices/thing-b/down/cmd",
            "$SYS/#",
            "$share/g/devices/thing-b/down/#",
            "$share/g/devices/thing-a/down/#",
            "devices/thing-a",
          ]
        ) {
          const [granted] = await a.subscribeAsync(topic, { qos: 1 }).catch(() => [{ qos: 128 }]);
          assert.equal(granted.qos, 128, `${topic} is refused`);
        }
        assert.ok(a.connected, "a refused subscription leaves the connection up");
        const own = Array.from({ length: MAX_DEVICE_SUBSCRIPTIONS }, (_, i) =>
          i === 0 ? "devices/thing-a/down/#" : `devices/thing-a/x${i}`);
        for (const topic of own) {
          const [granted] = await a.subscribeAsync(topic, { qos: 1 });
          assert.equal(granted.qos, 1, topic);
        }
        // Past the cap, new filters are refused; renewing a held one is not.
        const over = await a.subscribeAsync("devices/thing-a/one-more", { qos: 1 })
          .catch(() => [{ qos: 128 }]);
        assert.equal(over[0].qos, 128);
        assert.equal((await a.subscribeAsync("devices/thing-a/down/#", { qos: 0 }))[0].qos, 0);
        // Many filters in one SUBSCRIBE packet are held to the same cap.
        const b = await device(url, "thing-b");
        const many = Array.from({ length: 20 }, (_, i) =>
          `devices/thing-b/f${i}`);
        // mqtt.js rejects when any filter is refused; the SUBACK rides on the error.
        const suback = await b.subscribeAsync(many, { qos: 1 }).then(
          () => null,
          (error) => error.packet,
        );
        const codes: number[] = suback.granted;
        assertEquals(codes.filter((c) => c !== 128).length, MAX_DEVICE_SUBSCRIPTIONS);
        await b.endAsync(true);
      } finally {
        await a.endAsync(true);
      }
    }),
});

Deno.test({
  name: "broker: a last will on another device's topic is never published",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 1, "thing-b": 1 }, async (url) => {
      const svc = await service(url);
      try {
        const bad = await device(url, "thing-a", 1, {
          will: { topic: "devices/thing-b/up/status", payload: "offline", qos: 1, retain: true },
        });
        bad.stream.destroy();
        const good = await device(url, "thing-b", 1, {
          will: { topic: "devices/thing-b/up/status", payload: "gone", qos: 1, retain: true },
        });
        good.stream.destroy();
        await eventually(
          () => Promise.resolve(svc.seen.some((m) => m.payload === "gone")),
          "own will",
        );
        assert.ok(!svc.seen.some((m) => m.payload === "offline"));
        await bad.endAsync(true);
        await good.endAsync(true);
      } finally {
        await svc.client.endAsync(true);
      }
    }),
});

Deno.test({
  name: "broker: a packet over the size limit closes the connection before it is buffered",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 1 }, async (url, b) => {
      // Unauthenticated: a CONNECT header declaring 1 MB, then a trickle. The broker must not
      // wait for (and hold) the megabyte.
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: b.port });
      await conn.write(new Uint8Array([0x10, 0x80, 0x80, 0x40]));
      await conn.write(new Uint8Array(1024)).catch(() => {});
      const read = await Promise.race([
        conn.read(new Uint8Array(16)).catch(() => null),
        new Promise((r) => setTimeout(() => r("still open"), 3_000)),
      ]);
      assert.equal(read, null, "the broker closed the connection");
      conn.close();
      // Authenticated: an oversize publish disconnects the device and reaches no one.
      const svc = await service(url);
      try {
        const a = await device(url, "thing-a");
        const closed = closedWithin(a);
        a.publish("devices/thing-a/up/state", "x".repeat(MAX_PACKET_BYTES + 1), { qos: 0 });
        assert.ok(await closed);
        await a.endAsync(true);
        const again = await device(url, "thing-a");
        const fits = JSON.stringify({ pad: "y".repeat(MAX_PACKET_BYTES - 1000) });
        await again.publishAsync("devices/thing-a/up/state", fits, { qos: 1 });
        await again.endAsync(true);
        await eventually(
          () => Promise.resolve(svc.seen.some((m) => m.topic === "devices/thing-a/up/state")),
          "a packet within the limit",
        );
        assertEquals(
          svc.seen.filter((m) => m.topic === "devices/thing-a/up/state").map((m) => m.payload),
          [fits],
        );
      } finally {
        await svc.client.endAsync(true);
      }
    }),
});

Deno.test({
  name: "broker: sessions are clean, so nothing queues up for an offline device",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 1 }, async (url) => {
      const svc = await service(url);
      try {
        const first = await device(url, "thing-a", 1, { clean: false });
        await first.subscribeAsync("devices/thing-a/down/#", { qos: 1 });
        await first.endAsync();
        await svc.client.publishAsync("devices/thing-a/down/cmd", '{"kind":"text"}', { qos: 1 });
        // Listening before the CONNACK: a queued message would arrive right after it.
        const inbox: string[] = [];
        const second = mqtt.connect(url, {
          protocolVersion: 4,
          reconnectPeriod: 0,
          clientId: "thing-a",
          username: "thing-a",
          password: password("thing-a"),
          clean: false,
        });
        second.on("message", (topic) => inbox.push(topic));
        const connack = await new Promise<any>((resolve) => second.once("connect", resolve));
        assert.equal(connack.sessionPresent, false);
        await new Promise((r) => setTimeout(r, 300));
        assertEquals(inbox, []);
        await second.endAsync();
      } finally {
        await svc.client.endAsync(true);
      }
    }),
});

Deno.test({
  name: "broker: an aedes error event is reported, not thrown (it would end the process)",
  ...options,
  fn: () =>
    withBroker({}, (_url, b, errors) => {
      (b.aedes as unknown as EventEmitter).emit("error", new Error("persistence failed"));
      assertEquals(errors.map((e: any) => e.message), ["persistence failed"]);
      return Promise.resolve();
    }),
});

Deno.test({
  name: "broker: packets are written without mqtt-packet's 65,536-Buffer number table",
  ...options,
  fn: () =>
    withBroker({ "thing-a": 1 }, async (url) => {
      // Issue 26: the table (~8 MB of the request thread's heap) was filled by the first packet.
      const { client, seen } = await service(url);
      const a = await device(url, "thing-a");
      await a.publishAsync("devices/thing-a/up/heartbeat", "{}", { qos: 1 });
      await eventually(() => Promise.resolve(seen.length > 0), "the device's message");
      const numbers = (await import("mqtt-packet/numbers.js")).default as { cache: object };
      assertEquals(Object.keys(numbers.cache).length, 0);
      await Promise.all([a.endAsync(true), client.endAsync(true)]);
    }),
});
