import { assertEquals } from "../../../tests/helpers/assert.ts";
import { deepMerge, mergeVariables, streamMerge } from "./merge.ts";

Deno.test("replace stores the post as it is", () => {
  assertEquals(mergeVariables({ a: 1, b: { c: 2 } }, { b: { d: 3 } }), { b: { d: 3 } });
});

Deno.test("deep_merge merges nested objects and replaces arrays and scalars", () => {
  const stored = { a: 1, room: { temp: 20, hum: 40 }, list: [1, 2] };
  const merged = deepMerge(stored, { room: { temp: 21 }, list: [3], b: true });
  assertEquals(merged, { a: 1, room: { temp: 21, hum: 40 }, list: [3], b: true });
  assertEquals(stored.room.temp, 20, "the stored value is not changed");
});

Deno.test("deep_merge treats __proto__ as a plain key", () => {
  const posted = JSON.parse('{"__proto__": {"polluted": 1}}');
  const merged = deepMerge({}, posted);
  assertEquals(({} as Record<string, unknown>).polluted, undefined);
  assertEquals(Object.getPrototypeOf(merged), Object.prototype);
});

Deno.test("stream appends top-level arrays and keeps the newest stream_limit items", () => {
  const stored = { events: [1, 2, 3], title: "old" };
  assertEquals(streamMerge(stored, { events: [4, 5], title: "new" }, 4), {
    events: [2, 3, 4, 5],
    title: "new",
  });
  assertEquals(streamMerge({}, { events: [1] }), { events: [1] });
  assertEquals(streamMerge({ events: "x" }, { events: [1] }, 2), { events: [1] });
});
