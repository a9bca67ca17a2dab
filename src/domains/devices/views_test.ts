import assert from "node:assert/strict";
import { isOnline, ONLINE_WINDOW_MS, toDeviceListItem } from "./views.ts";

const now = Date.parse("2026-11-22T05:00:00Z");

Deno.test("online: last status online, or a heartbeat under 3 minutes old", () => {
  assert.ok(isOnline({ last_status: "online", last_seen_at: null }, now));
  assert.ok(isOnline({ last_status: "offline", last_seen_at: new Date(now - 1000) }, now));
  assert.ok(
    !isOnline({ last_status: "offline", last_seen_at: new Date(now - ONLINE_WINDOW_MS) }, now),
  );
  assert.ok(!isOnline({ last_status: null, last_seen_at: null }, now));
});

Deno.test("list items omit nulls, state, stateUpdatedAt and claimCode", () => {
  const item = toDeviceListItem({
    id: "01a20190-0000-7000-8000-000000000001",
    hw_id: "hw",
    thing_name: "thing",
    nickname: null,
    firmware: "1.0",
    battery: 0,
    online: false,
    last_status: null,
    last_seen_at: null,
    owner_id: "01a20190-0000-7000-8000-000000000002",
    bound_at: new Date(now),
    claim_code: "ABC234",
    state: { a: 1 },
    state_updated_at: new Date(now),
    tags: ["undeclared"],
    latest_push_id: null,
    latest_push_at: null,
    transport: "mqtt",
    created_at: new Date(now),
    updated_at: new Date(now),
  }, now);
  assert.deepEqual(item, {
    id: "01a20190-0000-7000-8000-000000000001",
    hwId: "hw",
    thingName: "thing",
    firmware: "1.0",
    battery: 0,
    online: false,
    ownerId: "01a20190-0000-7000-8000-000000000002",
    boundAt: "2026-11-22T05:00:00.000Z",
    tags: ["undeclared"],
    transport: "mqtt",
  });
});
