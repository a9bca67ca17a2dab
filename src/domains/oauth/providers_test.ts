import { assertEquals } from "../../../tests/helpers/assert.ts";
import { authorizedPartyOk, emailVerified } from "./providers.ts";

Deno.test('email verified: only true or Apple\'s "true"; missing is not verified', () => {
  const claims = (email_verified?: unknown) =>
    ({ sub: "s", ...(email_verified === undefined ? {} : { email_verified }) }) as never;
  assertEquals(emailVerified(claims(true)), true);
  assertEquals(emailVerified(claims("true")), true);
  for (const value of [undefined, false, "false", "TRUE", "yes", 1, null]) {
    assertEquals(emailVerified(claims(value)), false, String(value));
  }
});

Deno.test("authorized party: several audiences need azp naming us; a foreign azp fails", () => {
  assertEquals(authorizedPartyOk({ aud: "me" }, "me"), true);
  assertEquals(authorizedPartyOk({ aud: ["me"] }, "me"), true);
  assertEquals(authorizedPartyOk({ aud: "me", azp: "me" }, "me"), true);
  assertEquals(authorizedPartyOk({ aud: ["me", "other"], azp: "me" }, "me"), true);
  assertEquals(authorizedPartyOk({ aud: ["me", "other"] }, "me"), false);
  assertEquals(authorizedPartyOk({ aud: ["me", "other"], azp: "other" }, "me"), false);
  assertEquals(authorizedPartyOk({ aud: "me", azp: "other" }, "me"), false);
});
