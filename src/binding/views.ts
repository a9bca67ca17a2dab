/**
 * The user-side device object of SPEC 2.7, as the bind response returns it. The devices domain
 * owns the full device API; this mapping follows the same field list.
 */
import { z } from "zod";
import type { Selectable } from "kysely";
import type { DevicesTable } from "../devices/tables.ts";

export const boundDeviceSchema = z.object({
  id: z.uuid(),
  hwId: z.string(),
  thingName: z.string(),
  nickname: z.string().nullable(),
  firmware: z.string().nullable(),
  battery: z.number().int().nullable(),
  online: z.boolean(),
  lastSeenAt: z.string().nullable(),
  ownerId: z.uuid().nullable(),
  boundAt: z.string().nullable(),
  claimCode: z.string().nullable(),
  state: z.string().nullable(),
  stateUpdatedAt: z.string().nullable(),
  tags: z.array(z.string()),
  latestPushId: z.uuid().nullable(),
  latestPushAt: z.string().nullable(),
});

export function toBoundDevice(row: Selectable<DevicesTable>): z.infer<typeof boundDeviceSchema> {
  return {
    id: row.id,
    hwId: row.hw_id,
    thingName: row.thing_name,
    nickname: row.nickname,
    firmware: row.firmware,
    battery: row.battery,
    online: row.online,
    lastSeenAt: row.last_seen_at?.toISOString() ?? null,
    ownerId: row.owner_id,
    boundAt: row.bound_at?.toISOString() ?? null,
    claimCode: row.claim_code,
    // SPEC 2.7: state travels as an escaped JSON string.
    state: row.state === null || row.state === undefined ? null : JSON.stringify(row.state),
    stateUpdatedAt: row.state_updated_at?.toISOString() ?? null,
    tags: row.tags,
    latestPushId: row.latest_push_id,
    latestPushAt: row.latest_push_at?.toISOString() ?? null,
  };
}
