import { assert } from "../../../tests/helpers/assert.ts";
import { isUuid, uuidv7 } from "./ids.ts";

Deno.test("uuidv7 is a version-7 RFC 9562 UUID that sorts by time", () => {
  const a = uuidv7(1_700_000_000_000);
  const b = uuidv7(1_700_000_000_001);
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.ok(a < b);
  assert.equal(a.slice(0, 13), "018bcfe5-6800");
  assert.ok(isUuid(a));
  assert.equal(isUuid("not-a-uuid"), false);
});

Deno.test("uuidv7s of one millisecond, or after the clock steps back, sort in the order made", () => {
  const at = 4_000_000_000_000; // later than any id made before in this process
  const ids = Array.from({ length: 5_000 }, (_, i) => uuidv7(i === 2_500 ? at - 5 : at));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} < ${ids[i]}`);
  for (const id of ids) {
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }
  // 5,000 ids overflow the 12-bit counter: the time carries into the next milliseconds.
  assert.ok(ids.at(-1)!.slice(0, 13) > ids[0].slice(0, 13));
});
