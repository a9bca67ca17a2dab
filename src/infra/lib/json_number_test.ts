import { z } from "zod";
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { jsonInteger } from "./json_number.ts";

Deno.test("jsonInteger refuses what coercion would turn into a number", () => {
  const schema = z.object({ n: jsonInteger((n) => n.min(0)).optional() });
  // What trpc-to-openapi does to every number field of an input object.
  for (const field of Object.values(schema.shape)) {
    const inner = (field as unknown as { unwrap(): { _def: { coerce?: boolean } } }).unwrap();
    inner._def.coerce = true;
  }
  for (const bad of ["", "5", null, true, [], {}]) {
    assertEquals(schema.safeParse({ n: bad }).success, false, JSON.stringify(bad));
  }
  assertEquals(schema.parse({ n: 5 }), { n: 5 });
  assertEquals(schema.safeParse({ n: -1 }).success, false);
  assertEquals(schema.safeParse({ n: 1.5 }).success, false);
});
