import { z } from "zod";
import { callerAuth, defineRawRoute, type RawRoute } from "../../infra/http/raw.ts";
import { jsonInteger } from "../../infra/lib/json_number.ts";
import type { Surface } from "../../infra/trpc/surfaces.ts";
import { COLOR_MODES, MAX_SIDE } from "./output_profile.ts";

const side = jsonInteger((n) =>
  n.min(1, "must be at least 1").max(MAX_SIDE, `must be at most ${MAX_SIDE}`)
).optional().meta({ description: "Default: the Scene's viewport" });

/**
 * POST {prefix}/scenes/preview (an addition to SPEC 4.7): validates and renders a Scene without
 * storing anything; 200 image/png, 400 with the normaliser's message. A raw route because it
 * answers PNG bytes; the surface's credential is checked before the body is read.
 */
export function previewScene(surface: Surface): RawRoute {
  return defineRawRoute({
    method: "POST",
    path: `${surface.prefix}/scenes/preview`,
    operationId: `${surface.name}-previewScene`,
    summary: "Render a Scene without storing it",
    description: "Validates a Scene v1 document (the envelope or its `data`) with the rules of " +
      "SPEC 2.11 and renders it like a rendition: scaled into `width` x `height` (letterboxed " +
      "when the aspect differs), in the colour mode asked. Pictures are drawn from the caller's " +
      "own confirmed files; nothing is stored.",
    tags: [surface.name],
    auth: callerAuth([surface.name === "app" ? "user" : "pat"]),
    body: {
      kind: "json",
      schema: z.object({
        scene: z.unknown().meta({
          description: "A Scene v1 envelope `{mediaType, version, data}` or its `data`",
        }),
        width: side,
        height: side,
        colorMode: z.enum(COLOR_MODES).optional().meta({ description: "Default `color`" }),
      }).strict(),
      example: {
        scene: {
          version: 1,
          viewport: { width: 340, height: 340 },
          background: "#FFFFFF",
          elements: [
            {
              id: "bar",
              type: "shape",
              frame: { x: 0, y: 0, width: 340, height: 64 },
              properties: { fill: "#1F6FEB" },
            },
            {
              id: "title",
              type: "text",
              frame: { x: 24, y: 96, width: 292, height: 120 },
              properties: { text: "Water the plants", fontSize: 40, fontWeight: 700 },
            },
          ],
        },
        width: 170,
        height: 170,
      },
    },
    responses: {
      200: {
        description: "The PNG",
        content: { "image/png": z.string().meta({ format: "binary" }) },
      },
      400: {
        description: "invalid_request: the Scene (the message names the rule), the size, or a " +
          "Scene over its drawing or picture budget",
      },
      413: { description: "payload_too_large: a picture over the pixel limit" },
      415: { description: "unsupported_media_type: a picture the renderer cannot decode" },
      503: {
        description: "unavailable: the render pool is full, or the render ran past its 20 s " +
          "deadline; retry later",
      },
    },
    async handle({ req, ctx, auth, body }) {
      // The client going away ends the render (CONTRACT "Render budgets").
      const png = await ctx.services.targetless.scenePreview.render(auth.userId, body, req.signal);
      return new Response(png as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": "image/png", "cache-control": "no-store" },
      });
    },
  });
}
