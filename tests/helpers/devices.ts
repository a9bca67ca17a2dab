/**
 * Devices for tests, inserted straight into the server's database (the factory registers them
 * in production). `bind` sets the owner directly, as a successful NFC bind would.
 */
import { decodeBase64 } from "@oslojs/encoding";
import { uuidv7 } from "../../src/infra/lib/ids.ts";
import { deviceMqttPassword } from "../../src/infra/mqtt/device_secret.ts";
import type { PushStatus } from "../../src/domains/pushes/tables.ts";
import type { TestServer } from "./server.ts";

let counter = 0;

export interface TestDevice {
  id: string;
  hwId: string;
  thingName: string;
  /** Its MQTT password (CONTRACT.md "MQTT topics") for credential version 1. */
  mqttPassword: string;
}

/** MQTT passwords of the devices created here, so `connectDevice(url, thingName)` finds them. */
const passwords = new Map<string, string>();

/** The MQTT password a test device was created with. */
export function mqttPasswordOf(thingName: string): string | undefined {
  return passwords.get(thingName);
}

/** The server's MQTT device key: MQTT_DEVICE_KEY, else the one generated into DATA_DIR. */
export async function deviceKeyOf(server: TestServer): Promise<Uint8Array> {
  const configured = server.env.MQTT_DEVICE_KEY;
  if (configured) return decodeBase64(configured);
  const stored = JSON.parse(await Deno.readTextFile(`${server.env.DATA_DIR}/secrets.json`));
  return decodeBase64(stored.mqttDeviceKey);
}

/** The MQTT password of a thing at a credential version on this server. */
export async function mqttPassword(server: TestServer, thingName: string, version = 1) {
  return deviceMqttPassword(await deviceKeyOf(server), thingName, version);
}

/**
 * Registers an unbound device with a unique thing name and credential version 1 (as if its NFC
 * file had been generated), so it can log in to the embedded broker.
 */
export async function createDevice(server: TestServer, ownerId?: string): Promise<TestDevice> {
  const id = uuidv7();
  const hwId = crypto.randomUUID().replaceAll("-", "");
  const thingName = `dds-test-${hwId.slice(0, 12)}-${(counter++).toString(36)}`;
  await server.app.services.db.insertInto("devices").values({
    id,
    hw_id: hwId,
    thing_name: thingName,
    claim_code: ownerId ? null : "ABC234",
    owner_id: ownerId ?? null,
    bound_at: ownerId ? new Date() : null,
    credential_version: 1,
  }).execute();
  const password = await mqttPassword(server, thingName);
  passwords.set(thingName, password);
  return { id, hwId, thingName, mqttPassword: password };
}

/** Binds a device to a user, as a successful NFC bind would. */
export async function bindDevice(server: TestServer, deviceId: string, ownerId: string) {
  await server.app.services.db.updateTable("devices")
    .set({ owner_id: ownerId, bound_at: new Date(), claim_code: null })
    .where("id", "=", deviceId).execute();
}

/** The raw device row. */
export function deviceRow(server: TestServer, deviceId: string) {
  return server.app.services.db.selectFrom("devices").selectAll().where("id", "=", deviceId)
    .executeTakeFirstOrThrow();
}

/** Inserts a push in a given state with rendered files (when not PREPARE), bypassing the render. */
export async function insertPush(
  server: TestServer,
  device: { id: string },
  userId: string,
  options: { status?: PushStatus; priority?: number; title?: string; createdAt?: Date } = {},
) {
  const id = uuidv7();
  const status: PushStatus = options.status ?? "QUEUE";
  const prefix = `render/${userId}/${device.id}/${id}/`;
  if (status !== "PREPARE") {
    const store = server.app.services.storage;
    await store.put(`${prefix}image.png`, new Uint8Array([137, 80, 78, 71]), "image/png");
    await store.put(`${prefix}image2.raw`, new Uint8Array(48000), "application/octet-stream");
    await store.put(`${prefix}image4.raw`, new Uint8Array(96000), "application/octet-stream");
  }
  await server.app.services.db.insertInto("pushes").values({
    id,
    device_id: device.id,
    user_id: userId,
    title: options.title ?? "",
    status,
    priority: options.priority ?? 0,
    template: "test",
    render_prefix: status === "PREPARE" ? null : prefix,
    ...(options.createdAt ? { created_at: options.createdAt } : {}),
  }).execute();
  return id;
}

/** The raw push row. */
export function pushRow(server: TestServer, pushId: string) {
  return server.app.services.db.selectFrom("pushes").selectAll().where("id", "=", pushId)
    .executeTakeFirstOrThrow();
}
