/** Row-to-API mapping of devices (SPEC 2.7, 2.8, 4.5 health). */
import { z } from "zod";
import { timestamp } from "../../infra/lib/wire.ts";
import type { Selectable } from "kysely";
import type { DeviceCommandsTable, DevicesTable } from "./tables.ts";

type DeviceRow = Selectable<DevicesTable>;

/** CONTRACT.md: online while the last status is `online` or the last heartbeat is recent. */
export const ONLINE_WINDOW_MS = 3 * 60 * 1000;

/** Whether a device counts as online at `now`. */
export function isOnline(row: Pick<DeviceRow, "last_status" | "last_seen_at">, now = Date.now()) {
  if (row.last_status === "online") return true;
  return row.last_seen_at !== null && now - row.last_seen_at.getTime() < ONLINE_WINDOW_MS;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** SPEC 2.7: `state` travels as an escaped JSON string. */
function stateString(state: unknown): string | null {
  return state === null || state === undefined ? null : JSON.stringify(state);
}

/** The transports a device may have (CONTRACT.md; each has its adapter, `transport.ts`). */
export const TRANSPORTS = ["mqtt", "http", "image_feed", "trmnl_webhook"] as const;

// CONTRACT.md "Displays people already own": an added field, SPEC's are unchanged.
const transportSchema = z.enum(TRANSPORTS).meta({
  description: "`mqtt`: a device made by the factory; `http`: a display polling " +
    "`GET /api/display`; `image_feed`, `trmnl_webhook`: a display behind another provider " +
    "(`POST /api/devices/external`)",
});

export const deviceSchema = z.object({
  id: z.uuid(),
  hwId: z.string(),
  thingName: z.string(),
  nickname: z.string().nullable(),
  firmware: z.string().nullable(),
  battery: z.number().int().nullable(),
  online: z.boolean(),
  lastSeenAt: timestamp.nullable(),
  ownerId: z.uuid().nullable(),
  boundAt: timestamp.nullable(),
  claimCode: z.string().nullable(),
  state: z.string().nullable().meta({ description: "Reported state as an escaped JSON string" }),
  stateUpdatedAt: timestamp.nullable(),
  tags: z.array(z.string()),
  latestPushId: z.uuid().nullable(),
  latestPushAt: timestamp.nullable(),
  transport: transportSchema,
}).meta({ id: "Device" });

/** SPEC 2.7 list form: null optionals omitted; no state, stateUpdatedAt or claimCode. */
export const deviceListItemSchema = z.object({
  id: z.uuid(),
  hwId: z.string(),
  thingName: z.string(),
  nickname: z.string().optional(),
  firmware: z.string().optional(),
  battery: z.number().int().optional(),
  online: z.boolean(),
  lastSeenAt: timestamp.optional(),
  ownerId: z.uuid().optional(),
  boundAt: timestamp.optional(),
  tags: z.array(z.string()),
  latestPushId: z.uuid().optional(),
  latestPushAt: timestamp.optional(),
  transport: transportSchema,
}).meta({ id: "DeviceListItem" });

export const healthSchema = z.object({
  id: z.uuid(),
  hwId: z.string(),
  nickname: z.string(),
  online: z.boolean(),
  state: z.string().nullable(),
  battery: z.number().int().nullable(),
  firmware: z.string().nullable(),
  lastSeenAt: timestamp.nullable(),
  stateUpdatedAt: timestamp.nullable(),
  latestPushId: z.uuid().nullable(),
  latestPushAt: timestamp.nullable(),
  // CONTRACT.md "Displays behind another provider": an added field, only on such a device.
  provider: z.object({
    name: z.string(),
    host: z.string().nullable().meta({ description: "The webhook's host (never its URL)" }),
    lastPostAt: timestamp.nullable(),
    lastError: z.string().nullable(),
    lastErrorAt: timestamp.nullable(),
  }).optional().meta({ description: "A display behind another provider: its deliveries" }),
}).meta({ id: "DeviceHealth" });

export const commandSchema = z.object({
  id: z.uuid(),
  thingName: z.string(),
  kind: z.string(),
  payload: z.string().meta({ description: "JSON string with the full command parameters" }),
  status: z.string(),
  createdAt: timestamp,
}).meta({ id: "DeviceCommand" });

/** The `thingName` of a display's device (CONTRACT.md: `display-<hwId>`, the MAC as hex). */
export function displayThingName(hwId: string): string {
  return `display-${hwId}`;
}

/** The full device object (`GET /api/devices/{id}`, bind responses). */
export function toDevice(row: DeviceRow, now = Date.now()): z.infer<typeof deviceSchema> {
  return {
    id: row.id,
    hwId: row.hw_id,
    thingName: row.thing_name,
    nickname: row.nickname,
    firmware: row.firmware,
    battery: row.battery,
    online: isOnline(row, now),
    lastSeenAt: iso(row.last_seen_at),
    ownerId: row.owner_id,
    boundAt: iso(row.bound_at),
    claimCode: row.claim_code,
    state: stateString(row.state),
    stateUpdatedAt: iso(row.state_updated_at),
    tags: row.tags,
    latestPushId: row.latest_push_id,
    latestPushAt: iso(row.latest_push_at),
    transport: TRANSPORTS.find((name) => name === row.transport) ?? "mqtt",
  };
}

/** The list item: the device object without state and claim code, nulls left out. */
export function toDeviceListItem(row: DeviceRow, now = Date.now()) {
  const { state: _s, stateUpdatedAt: _u, claimCode: _c, ...rest } = toDevice(row, now);
  return Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== null),
  ) as z.infer<typeof deviceListItemSchema>;
}

/** `GET .../health`. */
export function toHealth(row: DeviceRow, now = Date.now()): z.infer<typeof healthSchema> {
  const d = toDevice(row, now);
  return {
    id: d.id,
    hwId: d.hwId,
    nickname: d.nickname ?? d.hwId,
    online: d.online,
    state: d.state,
    battery: d.battery,
    firmware: d.firmware,
    lastSeenAt: d.lastSeenAt,
    stateUpdatedAt: d.stateUpdatedAt,
    latestPushId: d.latestPushId,
    latestPushAt: d.latestPushAt,
  };
}

/** SPEC 2.8. */
export function toCommand(row: Selectable<DeviceCommandsTable>): z.infer<typeof commandSchema> {
  return {
    id: row.id,
    thingName: row.thing_name,
    kind: row.kind,
    payload: JSON.stringify(row.payload),
    status: row.status,
    createdAt: row.created_at.toISOString(),
  };
}
