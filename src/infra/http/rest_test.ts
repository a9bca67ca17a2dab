import { assertEquals } from "../../../tests/helpers/assert.ts";
import { decodeUnreserved } from "./rest.ts";

Deno.test("decodeUnreserved decodes unreserved characters of the path only", () => {
  assertEquals(
    decodeUnreserved("http://h/api/devices/0193%2Dab%7e%5F%41?q=%2D"),
    "http://h/api/devices/0193-ab~_A?q=%2D",
  );
  // `/`, `.`, `%`, non-ASCII and reserved characters stay encoded.
  assertEquals(decodeUnreserved("http://h/a/%2F%2e%25%C3%A9%3A"), "http://h/a/%2F%2e%25%C3%A9%3A");
});
