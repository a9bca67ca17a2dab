/** `deno task openapi`: writes openapi/openapi.json from the current routes. */
import { buildOpenApiDocument } from "./document.ts";
import { allRawRoutes } from "../app.ts";

const target = new URL("../../openapi/openapi.json", import.meta.url);
await Deno.mkdir(new URL(".", target), { recursive: true });
await Deno.writeTextFile(target, renderOpenApi());
console.log(`Wrote ${target.pathname}`);

/** The document as committed: two-space JSON with a trailing newline. */
export function renderOpenApi(): string {
  return JSON.stringify(buildOpenApiDocument(allRawRoutes(() => ({}))), null, 2) + "\n";
}
