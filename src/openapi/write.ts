/** `deno task openapi`: writes openapi/openapi.json and openapi/factory.json from the routes. */
import { type Audience, COMMITTED, renderOpenApi } from "./document.ts";

for (const audience of ["user", "factory"] as Audience[]) {
  const target = COMMITTED[audience];
  await Deno.mkdir(new URL(".", target), { recursive: true });
  await Deno.writeTextFile(target, renderOpenApi(audience));
  console.log(`Wrote ${target.pathname}`);
}
