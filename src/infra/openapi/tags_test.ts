/** The documents' tags: declared by the faces and the infrastructure, listed in one order. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { documentTags, INFRASTRUCTURE_TAGS, TAG_ORDER } from "./tags.ts";

Deno.test("tags: the faces' tags join the infrastructure's, in the display order", () => {
  const names = documentTags([{ factory: "F" }, { accounts: "A" }]).map(([name]) => name);
  assertEquals(
    names,
    TAG_ORDER.filter((name) => name in INFRASTRUCTURE_TAGS || /^(factory|accounts)$/.test(name)),
  );
});

Deno.test("tags: a tag the order does not name comes last, in declaration order", () => {
  const tags = documentTags([{ zebra: "Z" }, { accounts: "A", albums: "B" }]);
  assertEquals(tags.slice(-2), [["zebra", "Z"], ["albums", "B"]]);
  assertEquals(tags[0], ["accounts", "A"]);
});

Deno.test("tags: a tag declared twice stops the build", () => {
  assert.throws(() => documentTags([{ devices: "a" }, { devices: "b" }]), /declared twice/);
  assert.throws(() => documentTags([{ system: "mine" }]), /declared twice/);
});
