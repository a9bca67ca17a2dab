import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { signatureHeader, verifySignature } from "./sign.ts";

// The HMAC computed independently (Python's hmac module) over `t + "." + body`.
const BODY = '{"id":"e1"}';
const HEADER = "t=1700000000,v1=6a85cb117c993612a34c72b4cfb5a16baed25a80d26e298ce0e6671320fd07c8";

Deno.test("signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t.body)>", () => {
  assertEquals(signatureHeader("whsec_test", 1700000000, BODY), HEADER);
});

Deno.test("verification: the body, the secret and the time must all match", () => {
  const now = 1700000000;
  assert.ok(verifySignature("whsec_test", HEADER, BODY, now));
  assert.ok(verifySignature("whsec_test", HEADER, BODY, now + 300));
  assertEquals(verifySignature("whsec_test", HEADER, BODY, now + 301), false);
  assertEquals(verifySignature("whsec_test", HEADER, BODY + " ", now), false);
  assertEquals(verifySignature("whsec_other", HEADER, BODY, now), false);
  for (const bad of ["", "t=abc,v1=00", "v1=00", "t=1700000000", HEADER.replace("v1=6", "v1=7")]) {
    assertEquals(verifySignature("whsec_test", bad, BODY, now), false, bad);
  }
});
