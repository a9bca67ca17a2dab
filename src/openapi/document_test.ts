import { assert } from "../../tests/helpers/assert.ts";
import { renderOpenApi } from "./document.ts";

Deno.test("openapi/openapi.json is current (run `deno task openapi` after changing routes)", async () => {
  const committed = await Deno.readTextFile(new URL("../../openapi/openapi.json", import.meta.url));
  assert.ok(
    committed === renderOpenApi(),
    "openapi/openapi.json is stale: run `deno task openapi`",
  );
});
