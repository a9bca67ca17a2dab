/**
 * The service's MQTT client against a broker that goes away and comes back: publishes fail with
 * 503 while it is down (never a false `delivered`), and the client reconnects by itself.
 */
import mqtt from "mqtt";
import { assert } from "./helpers/assert.ts";
import { eventually } from "./helpers/mqtt.ts";
import { startEmbeddedBroker } from "../src/infra/mqtt/broker.ts";
import { MqttGateway } from "../src/infra/mqtt/gateway.ts";
import { SERVICE_USERNAME } from "../src/infra/mqtt/broker.ts";
import { deviceMqttPassword } from "../src/infra/mqtt/device_secret.ts";
import { AppError } from "../src/errors.ts";
import { PromMetrics } from "../src/infra/metrics/metrics.ts";

const SECRET = "gateway-test-secret";
const KEY = new Uint8Array(32).fill(3);

function broker(port: number) {
  return startEmbeddedBroker({
    port,
    host: "127.0.0.1",
    serviceSecret: SECRET,
    deviceKey: KEY,
    credentialVersions: (names) =>
      Promise.resolve(new Map(names.filter((n) => /^thing-\d$/.test(n)).map((n) => [n, 1]))),
  });
}

Deno.test({
  name: "gateway: 503 while the broker is down, reconnects and delivers after",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    let first = await broker(0);
    const port = first.port;
    const inbound: string[] = [];
    const gateway = await MqttGateway.connect({
      url: `mqtt://127.0.0.1:${port}`,
      username: SERVICE_USERNAME,
      password: SECRET,
      onMessage: (m) => {
        inbound.push(`${m.thingName} ${m.channel}`);
        return Promise.resolve();
      },
      publishTimeoutMs: 2_000,
    });
    try {
      assert.ok(gateway.connected);
      await gateway.publish("thing-1", "down/cmd", { kind: "text", text: "one" });
      await first.close();
      await eventually(() => Promise.resolve(!gateway.connected), "disconnect");
      await assert.rejects(
        gateway.publish("thing-1", "down/cmd", { kind: "text", text: "lost" }),
        (error) => error instanceof AppError && error.status === 503,
      );
      first = await broker(port);
      await eventually(() => Promise.resolve(gateway.connected), "reconnect");
      // The subscription is back too: a device message reaches the handler.
      const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
        clientId: "thing-1",
        username: "thing-1",
        password: deviceMqttPassword(KEY, "thing-1", 1),
        protocolVersion: 4,
        reconnectPeriod: 0,
      });
      await eventually(async () => {
        await device.publishAsync("devices/thing-1/up/heartbeat", "{}", { qos: 1 });
        return inbound.includes("thing-1 up/heartbeat");
      }, "inbound after reconnect");
      await device.endAsync(true);
      await gateway.publish("thing-1", "down/cmd", { kind: "text", text: "two" });
    } finally {
      await gateway.close();
      await first.close();
    }
  },
});

Deno.test({
  name: "gateway: a flooding device fills a bounded backlog; the rest is dropped and logged once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const b = await broker(0);
    const url = `mqtt://127.0.0.1:${b.port}`;
    let release = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    const metrics = new PromMetrics();
    const errors: string[] = [];
    const gateway = await MqttGateway.connect({
      url,
      username: SERVICE_USERNAME,
      password: SECRET,
      onMessage: async (m) => {
        await blocked;
        handled.push(new TextDecoder().decode(m.payload));
      },
      onError: (msg) => errors.push(msg),
      inbound: { concurrency: 1, maxQueued: 100, maxQueuedBytes: 1 << 20, maxPerThing: 4 },
      metrics,
    });
    const device = await mqtt.connectAsync(url, {
      clientId: "thing-1",
      username: "thing-1",
      password: deviceMqttPassword(KEY, "thing-1", 1),
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    try {
      for (let i = 0; i < 200; i++) {
        await device.publishAsync("devices/thing-1/up/get_push", `${i}`, { qos: 1 });
      }
      await eventually(() => Promise.resolve(errors.length > 0), "the drop is logged");
      assert.equal(gateway.backlog, 4);
      release();
      await eventually(() => Promise.resolve(handled.length === 5), "the backlog drains");
      assert.deepEqual(handled, ["0", "1", "2", "3", "4"]);
      assert.deepEqual(errors, ["mqtt messages dropped (oversize or backlog full)"]);
      // Counted in /metrics; a device over its own bound is not answered busy (its first
      // requests are answered).
      const { text } = await metrics.scrape();
      assert.match(text, /mqtt_dropped_total\{reason="device_backlog"\} 195\n/);
      assert.match(text, /mqtt_busy_answers_total\{outcome="sent"\} 0\n/);
    } finally {
      await device.endAsync(true);
      await gateway.close();
      await b.close();
    }
  },
});

Deno.test({
  name: "gateway: past the whole backlog, get_push is answered busy with a retry-after, counted",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const b = await broker(0);
    const url = `mqtt://127.0.0.1:${b.port}`;
    let release = () => {};
    const blocked = new Promise<void>((resolve) => release = resolve);
    const metrics = new PromMetrics();
    const gateway = await MqttGateway.connect({
      url,
      username: SERVICE_USERNAME,
      password: SECRET,
      onMessage: () => blocked,
      inbound: { concurrency: 1, maxQueued: 2, maxQueuedBytes: 1 << 20, maxPerThing: 16 },
      metrics,
    });
    const connect = (thing: string) =>
      mqtt.connectAsync(url, {
        clientId: thing,
        username: thing,
        password: deviceMqttPassword(KEY, thing, 1),
        protocolVersion: 4,
        reconnectPeriod: 0,
      });
    const devices = await Promise.all(["thing-1", "thing-2", "thing-3", "thing-4"].map(connect));
    const answers: Array<{ thing: string; body: Record<string, unknown> }> = [];
    try {
      for (const [i, device] of devices.entries()) {
        device.on(
          "message",
          (topic, payload) =>
            answers.push({ thing: topic.split("/")[1], body: JSON.parse(payload.toString()) }),
        );
        await device.subscribeAsync(`devices/thing-${i + 1}/down/push`, { qos: 1 });
      }
      // thing-1 runs (blocked), thing-2 and thing-3 wait: the backlog (2) is full.
      for (const [i, device] of devices.entries()) {
        await device.publishAsync(`devices/thing-${i + 1}/up/get_push`, "{}", { qos: 1 });
      }
      // A message that asks for no answer is dropped (and counted), nothing is sent for it.
      await devices[3].publishAsync("devices/thing-4/up/heartbeat", "{}", { qos: 1 });
      await eventually(() => Promise.resolve(answers.length > 0), "the busy answer");
      assert.equal(answers.length, 1);
      assert.equal(answers[0].thing, "thing-4");
      assert.equal(answers[0].body.error, "busy");
      const retryAfter = answers[0].body.retryAfter as number;
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 10 && retryAfter <= 20,
        `${retryAfter}`,
      );
      const { text } = await metrics.scrape();
      assert.match(text, /mqtt_dropped_total\{reason="backlog_full"\} 2\n/);
      assert.match(text, /mqtt_busy_answers_total\{outcome="sent"\} 1\n/);
      assert.equal(gateway.backlog, 2);
    } finally {
      release();
      await Promise.all(devices.map((d) => d.endAsync(true)));
      await gateway.close();
      await b.close();
    }
  },
});

Deno.test({
  name: "gateway: a get_push that would wait too long is answered busy before the backlog is full",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const b = await broker(0);
    const url = `mqtt://127.0.0.1:${b.port}`;
    const metrics = new PromMetrics();
    // Each message takes 100 ms: with 5 waiting, a new one would wait about 0.5 s.
    const gateway = await MqttGateway.connect({
      url,
      username: SERVICE_USERNAME,
      password: SECRET,
      onMessage: () => new Promise((resolve) => setTimeout(resolve, 100)),
      inbound: { concurrency: 1, maxQueued: 1_000, maxQueuedBytes: 1 << 20, maxPerThing: 100 },
      shedding: { minBacklog: 3, maxWaitSeconds: 0.2 },
      metrics,
    });
    const device = await mqtt.connectAsync(url, {
      clientId: "thing-1",
      username: "thing-1",
      password: deviceMqttPassword(KEY, "thing-1", 1),
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    const answers: Array<Record<string, unknown>> = [];
    try {
      device.on("message", (_topic, payload) => answers.push(JSON.parse(payload.toString())));
      await device.subscribeAsync("devices/thing-1/down/push", { qos: 1 });
      for (let i = 0; i < 12; i++) {
        await device.publishAsync("devices/thing-1/up/get_push", "{}", { qos: 1 });
      }
      await eventually(() => Promise.resolve(gateway.backlog === 0), "the backlog drains");
      // The first ones measured the rate; once it was known, a request finding 3 or more
      // waiting (0.3 s or more) is answered busy at once instead of queued.
      for (let i = 0; i < 12; i++) {
        await device.publishAsync("devices/thing-1/up/get_push", "{}", { qos: 1 });
      }
      await eventually(() => Promise.resolve(answers.length > 0), "a busy answer");
      assert.ok(answers.every((a) => a.error === "busy" && typeof a.retryAfter === "number"));
      const { text } = await metrics.scrape();
      assert.match(text, /mqtt_dropped_total\{reason="backlog_wait"\} [1-9]/);
      assert.match(text, /mqtt_dropped_total\{reason="backlog_full"\} 0\n/);
    } finally {
      await device.endAsync(true);
      await gateway.close();
      await b.close();
    }
  },
});
