import { assert } from "../../../tests/helpers/assert.ts";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "./passwords.ts";

Deno.test("scrypt hashes verify the right password only, with a fresh salt each time", async () => {
  const a = await hashPassword("correct horse");
  const b = await hashPassword("correct horse");
  assert.match(a, /^scrypt\$32768\$8\$1\$/);
  assert.notEqual(a, b);
  assert.equal(await verifyPassword("correct horse", a), true);
  assert.equal(await verifyPassword("correct horsE", a), false);
  assert.equal(await verifyPassword("x", "garbage"), false);
  assert.equal(await verifyPassword("x", "scrypt$99999999999$8$1$AAAA$AAAA"), false);
  assert.equal(await verifyAgainstDummy("anything"), false);
});
