/**
 * Recipes over HTTP (CONTRACT.md): `POST /api/plugins/import` takes a zip (TRMNL's export or a
 * trmnlp project) and answers the plugin with what will not work as on TRMNL;
 * `GET /api/plugins/{id}/export` answers the same layout. Raw routes: zip bytes in and out.
 */
import { z } from "zod";
import { callerAuth, defineRawRoute, json, type RawRoute } from "../../infra/http/raw.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { RECIPE_LIMITS } from "./recipe.ts";
import { pluginSchema } from "./views.ts";

export const importPlugin: RawRoute = defineRawRoute({
  method: "POST",
  path: "/api/plugins/import",
  operationId: "plugins-importPlugin",
  summary: "Import a recipe zip",
  description: "A TRMNL export or a trmnlp project: `settings.yml` and the `.liquid` views " +
    "(`full`, `half_horizontal`, `half_vertical`, `quadrant`, `shared`) at the root or under " +
    "`src/`. At most 1 MiB packed and 10 MiB unpacked. `compatibility.warnings` names each " +
    "thing that will not work as on TRMNL (an unknown filter, a serverless transform, OAuth).",
  tags: ["plugins"],
  auth: callerAuth(["user", "pat"]),
  body: {
    kind: "bytes",
    contentType: "application/zip",
    limit: RECIPE_LIMITS.packedBytes,
    docSchema: z.string().meta({ format: "binary" }),
    // The document can only name the file: a zip is bytes.
    example: "(the bytes of a recipe zip: src/settings.yml and src/full.liquid)",
  },
  responses: {
    201: {
      description: "The plugin, and what will not work as on TRMNL",
      content: {
        "application/json": z.object({
          plugin: pluginSchema,
          compatibility: z.object({ warnings: z.array(z.string()) }),
        }).meta({ id: "ImportedPlugin" }),
      },
    },
    400: {
      description: "invalid_request: not a zip, no markup, over the limits, a path outside the " +
        "recipe, settings.yml that is not a mapping, or a field of the plugin",
    },
  },
  async handle({ ctx, auth, body }) {
    return json(await ctx.services.plugins.importRecipe(auth.userId, body), 201);
  },
});

export const exportPlugin: RawRoute = defineRawRoute({
  method: "GET",
  path: "/api/plugins/{id}/export",
  operationId: "plugins-exportPlugin",
  summary: "Export a plugin as a recipe zip",
  description: "trmnlp's layout (`src/settings.yml` and the views), which imports back to the " +
    "same plugin, here or on TRMNL.",
  tags: ["plugins"],
  auth: callerAuth(["user", "pat"]),
  params: z.object({ id: uuidParam }),
  responses: {
    200: {
      description: "The zip",
      content: { "application/zip": z.string().meta({ format: "binary" }) },
    },
    404: { description: "not_found: Plugin not found" },
  },
  async handle({ ctx, auth, params }) {
    const { name, zip } = await ctx.services.plugins.exportRecipe(auth.userId, params.id);
    const file = name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "plugin";
    return new Response(zip as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": "application/zip",
        "content-disposition": `attachment; filename="${file}.zip"`,
        "cache-control": "no-store",
      },
    });
  },
});
