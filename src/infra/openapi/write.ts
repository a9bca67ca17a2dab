/** `deno task openapi`: writes openapi/openapi.json and openapi/factory.json from the routes. */
import { type Audience, COMMITTED, renderOpenApi } from "./document.ts";
import { helpAndExit } from "../lib/usage.ts";

helpAndExit(
  Deno.args,
  `Usage: deno task openapi

Writes openapi/openapi.json (user API) and openapi/factory.json (factory console) from the routes;
a test fails while the committed files are stale.`,
);

for (const audience of ["user", "factory"] as Audience[]) {
  const target = COMMITTED[audience];
  await Deno.mkdir(new URL(".", target), { recursive: true });
  await Deno.writeTextFile(target, renderOpenApi(audience));
  console.log(`Wrote ${target.pathname}`);
}
