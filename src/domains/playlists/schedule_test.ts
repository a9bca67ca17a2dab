import { assertEquals } from "../../../tests/helpers/assert.ts";
import type { PlaylistItem } from "./inputs.ts";
import { isDue, localTime, nextDue } from "./schedule.ts";

const item = (extra: Partial<PlaylistItem> = {}) =>
  ({ pluginId: crypto.randomUUID(), durationSeconds: 900, ...extra }) as PlaylistItem;

// Wednesday 2026-01-07 10:30 UTC is 11:30 in Berlin, 05:30 in New York.
const NOW = new Date("2026-01-07T10:30:00Z");

Deno.test("local weekday and minute in the playlist's zone", () => {
  assertEquals(localTime("UTC", NOW), { day: 3, minute: 630 });
  assertEquals(localTime("Europe/Berlin", NOW), { day: 3, minute: 690 });
  assertEquals(localTime("Pacific/Kiritimati", NOW), { day: 4, minute: 30 });
});

Deno.test("days and from/until: inside, outside, across midnight", () => {
  assertEquals(isDue(item(), "UTC", NOW), true);
  assertEquals(isDue(item({ days: [3] }), "UTC", NOW), true);
  assertEquals(isDue(item({ days: [3] }), "Pacific/Kiritimati", NOW), false);
  assertEquals(isDue(item({ from: "10:00", until: "11:00" }), "UTC", NOW), true);
  assertEquals(isDue(item({ from: "10:00", until: "11:00" }), "Europe/Berlin", NOW), false);
  assertEquals(isDue(item({ from: "22:00", until: "11:00" }), "UTC", NOW), true);
  assertEquals(isDue(item({ from: "22:00", until: "10:30" }), "UTC", NOW), false);
  assertEquals(isDue(item({ until: "10:31" }), "UTC", NOW), true);
});

Deno.test("the next due item wraps round and skips the ones outside; none is -1", () => {
  const items = [item(), item({ days: [0] }), item()];
  assertEquals(nextDue(items, "UTC", -1, NOW), 0);
  assertEquals(nextDue(items, "UTC", 0, NOW), 2);
  assertEquals(nextDue(items, "UTC", 2, NOW), 0);
  assertEquals(nextDue([item({ days: [1] })], "UTC", -1, NOW), -1);
  assertEquals(nextDue([item()], "UTC", 0, NOW), 0);
});
