/** `deno task openapi`: writes openapi/openapi.json from the current routes. */
import { renderOpenApi } from "./document.ts";

const target = new URL("../../openapi/openapi.json", import.meta.url);
await Deno.mkdir(new URL(".", target), { recursive: true });
await Deno.writeTextFile(target, renderOpenApi());
console.log(`Wrote ${target.pathname}`);
