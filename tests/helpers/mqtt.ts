// deno-lint-ignore-file no-explicit-any -- messages are untyped JSON; tests assert their shape
/** A simulated device for tests: an MQTT client with the device's identity and a mailbox. */
import mqtt, { type MqttClient } from "mqtt";
import { mqttPasswordOf } from "./devices.ts";

export interface DeviceClient {
  client: MqttClient;
  /** Every message received so far, in order (a duplicate shows here). */
  received: Array<{ topic: string; body: any }>;
  /** Publishes JSON (or a bare string) on `devices/{thing}/{channel}` and waits for PUBACK. */
  send(channel: string, body: unknown): Promise<void>;
  /** The next message on `devices/{thing}/{channel}` matching `match`. */
  next(channel: string, match?: (body: any) => boolean): Promise<any>;
  close(): Promise<void>;
}

/**
 * Connects as `thingName` (client id = username, password = its device secret: by default the one
 * `createDevice` made) and subscribes to its down/#.
 */
export async function connectDevice(
  url: string,
  thingName: string,
  password = mqttPasswordOf(thingName),
): Promise<DeviceClient> {
  const client = await mqtt.connectAsync(url, {
    clientId: thingName,
    username: thingName,
    password,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 5_000,
  });
  const inbox: Array<{ topic: string; body: any }> = [];
  const received: Array<{ topic: string; body: any }> = [];
  const waiters: Array<() => void> = [];
  client.on("message", (topic, payload) => {
    const text = payload.toString();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch { /* bare string */ }
    inbox.push({ topic, body });
    received.push({ topic, body });
    for (const wake of waiters.splice(0)) wake();
  });
  await client.subscribeAsync(`devices/${thingName}/down/#`, { qos: 1 });
  return {
    client,
    received,
    async send(channel, body) {
      const payload = typeof body === "string" ? body : JSON.stringify(body);
      await client.publishAsync(`devices/${thingName}/${channel}`, payload, { qos: 1 });
    },
    async next(channel, match = () => true) {
      const topic = `devices/${thingName}/${channel}`;
      const deadline = Date.now() + 10_000;
      while (true) {
        const i = inbox.findIndex((m) => m.topic === topic && match(m.body));
        if (i >= 0) return inbox.splice(i, 1)[0].body;
        if (Date.now() > deadline) throw new Error(`no message on ${topic}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    async close() {
      await client.endAsync(true);
    },
  };
}

/** Polls `check` until it returns a truthy value (a state change made by a background handler). */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (true) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
