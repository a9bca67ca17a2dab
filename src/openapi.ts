/**
 * The committed OpenAPI documents: `openapi/openapi.json` (user API) and `openapi/factory.json`
 * (factory console), built from the service's own router and raw routes
 * (src/infra/openapi/document.ts). `deno task openapi` writes them; a test fails while they are
 * stale.
 */
import { type Audience, buildOpenApiDocument } from "./infra/openapi/document.ts";
import { helpAndExit } from "./infra/lib/usage.ts";
import { allRawRoutes } from "./raw_routes.ts";
import { appRouter } from "./router.ts";
import { DOMAIN_TAGS } from "./domains.ts";

/** A document as committed: two-space JSON, trailing newline. */
export function renderOpenApi(audience: Audience = "user"): string {
  const raw = allRawRoutes({ user: () => ({}), factory: () => ({}) });
  return JSON.stringify(
    buildOpenApiDocument(audience, { router: appRouter, raw, tags: DOMAIN_TAGS }),
    null,
    2,
  ) + "\n";
}

/** Where each document is committed. */
export const COMMITTED: Record<Audience, URL> = {
  user: new URL("../openapi/openapi.json", import.meta.url),
  factory: new URL("../openapi/factory.json", import.meta.url),
};

if (import.meta.main) {
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
}
