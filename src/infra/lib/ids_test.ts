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
