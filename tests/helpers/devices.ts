/**
 * Devices for tests, inserted straight into the server's database (the factory registers them
 * in production). `bind` sets the owner directly, as a successful NFC bind would.
 */
import { uuidv7 } from "../../src/lib/ids.ts";
import type { PushStatus } from "../../src/pushes/tables.ts";
import type { TestServer } from "./server.ts";

let counter = 0;

export interface TestDevice {
  id: string;
  hwId: string;
  thingName: string;
}

/** Registers an unbound device with a unique thing name. */
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
  }).execute();
  return { id, hwId, thingName };
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
