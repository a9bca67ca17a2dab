/** Routes of the service itself: health and the OpenAPI document. */
import { json, type RawRoute } from "./raw.ts";

/** GET /health: 200 `{"status":"ok"}`, no authentication (SPEC 1.8). */
export const health: RawRoute = {
  method: "GET",
  path: "/health",
  handle: () => Promise.resolve(json({ status: "ok" })),
  doc: {
    tags: ["system"],
    summary: "Liveness",
    responses: { 200: { description: "The service is up" } },
  },
};

/** GET /openapi.json: the document generated at start-up. */
export function openApiRoute(document: () => unknown): RawRoute {
  return {
    method: "GET",
    path: "/openapi.json",
    handle: () => Promise.resolve(json(document())),
    doc: {
      tags: ["system"],
      summary: "This OpenAPI document",
      responses: { 200: { description: "OpenAPI 3.1 document" } },
    },
  };
}
