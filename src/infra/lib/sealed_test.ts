import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { open, seal } from "./sealed.ts";

const key = crypto.getRandomValues(new Uint8Array(32));

Deno.test("a sealed value opens under its key only, with a fresh nonce each time", async () => {
  const url = "https://usetrmnl.com/api/custom_plugins/0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10";
  const one = await seal(key, url);
  const two = await seal(key, url);
  assert(one !== two);
  assertEquals(one.includes("usetrmnl"), false);
  assertEquals(await open(key, one), url);
  const refused = (value: string, under = key) => open(under, value).then(() => false, () => true);
  assert(await refused(one, crypto.getRandomValues(new Uint8Array(32))));
  assert(await refused(one.slice(0, -2) + (one.endsWith("AA") ? "BB" : "AA")));
  assert(await refused("plain text"));
});
