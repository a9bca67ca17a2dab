import { sha256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { appleFormName, nonceMatches } from "./apple_claims.ts";

Deno.test("nonce: equal, or the token holds the SHA-256 hex of the presented nonce", () => {
  const hashed = encodeHexLowerCase(sha256(new TextEncoder().encode("raw")));
  assertEquals(nonceMatches("raw", "raw"), true);
  assertEquals(nonceMatches(hashed, "raw"), true);
  assertEquals(nonceMatches("raw", "other"), false);
  assertEquals(nonceMatches(undefined, "raw"), false);
  assertEquals(nonceMatches(hashed, hashed.toUpperCase()), false);
});

Deno.test("Apple's user form field gives the name only when it has one", () => {
  assertEquals(
    appleFormName('{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"a@b.c"}'),
    "Ada Lovelace",
  );
  assertEquals(appleFormName('{"name":{"firstName":" Ada "}}'), "Ada");
  assertEquals(appleFormName('{"email":"a@b.c"}'), undefined);
  assertEquals(appleFormName("not json"), undefined);
  assertEquals(appleFormName(null), undefined);
});
