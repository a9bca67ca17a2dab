/** Routes of the service itself: health and the OpenAPI document. */
import { z } from "zod";
import { defineRawRoute, json, publicRoute, type RawRoute } from "./raw.ts";

/** GET /health: 200 `{"status":"ok"}`, no authentication (SPEC 1.8). */
export const health = defineRawRoute({
  method: "GET",
  path: "/health",
  operationId: "system-health",
  summary: "Liveness",
  tags: ["system"],
  auth: publicRoute,
  responses: {
    200: {
      description: "The service is up",
      content: { "application/json": z.object({ status: z.literal("ok") }) },
    },
  },
  handle: () => Promise.resolve(json({ status: "ok" })),
});

/** GET /openapi.json: the document generated at start-up. */
export function openApiRoute(document: () => unknown): RawRoute {
  return defineRawRoute({
    method: "GET",
    path: "/openapi.json",
    operationId: "system-openapi",
    summary: "This OpenAPI document",
    tags: ["system"],
    auth: publicRoute,
    responses: {
      200: {
        description: "OpenAPI 3.1 document",
        content: { "application/json": z.object({ openapi: z.string() }).loose() },
      },
    },
    handle: () => Promise.resolve(json(document())),
  });
}
