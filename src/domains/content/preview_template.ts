import { z } from "zod";
import { callerAuth, defineRawRoute } from "../../infra/http/raw.ts";

/**
 * POST /api/templates/{name}/preview: the variables object itself as the JSON body (CONTRACT.md),
 * answered with the push image (800x480, 1 bit) without creating a push.
 */
export const previewTemplate = defineRawRoute({
  method: "POST",
  path: "/api/templates/{name}/preview",
  operationId: "templates-previewTemplate",
  summary: "Render a template's push image for given variables",
  tags: ["templates"],
  // Authenticated before the body is read or anything rendered (checks before costs).
  auth: callerAuth(["user", "pat"]),
  params: z.object({ name: z.string().max(64) }),
  body: {
    kind: "json",
    schema: z.record(z.string(), z.unknown()).meta({
      description: "The template's variables, matching its schema",
    }),
    // The `note` template's variables (templates/note/sample.json).
    example: {
      title: "Before the weekend",
      body: "Water the plants on the balcony.\nCall the landlord about the heating.",
      footer: "Thursday, 14 March",
    },
  },
  responses: {
    200: {
      description: "The 800x480 1-bit PNG",
      content: { "image/png": z.string().meta({ format: "binary" }) },
    },
    400: {
      description: "Variables that do not match the schema, nest deeper than 32 levels, or name " +
        "a picture by anything but a file id (the message names the variable)",
    },
    401: { description: "Unauthorized" },
    404: { description: "Unknown template" },
    413: { description: "A picture over the pixel limit" },
    415: { description: "A picture of a type the renderer does not decode" },
    503: {
      description: "The render pool is full, or the render ran past its 20 s deadline; retry later",
    },
  },
  async handle({ req, ctx, auth, params, body }) {
    // The client going away ends the render (CONTRACT "Render budgets").
    const png = await ctx.services.templates.preview(auth.userId, params.name, body, req.signal);
    return new Response(png as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": "image/png", "cache-control": "no-store" },
    });
  },
});
