/** Routes of the service itself: health and the OpenAPI document. */
import { z } from "zod";
import { defineRawRoute, json, publicRoute, type RawRoute } from "./raw.ts";

const HEALTH_BODY = JSON.stringify({ status: "ok" });
const HEALTH_INIT: ResponseInit = { headers: { "content-type": "application/json" } };

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
  // The same bytes every time, built once: a health checker's request allocates little.
  handle: () => Promise.resolve(new Response(HEALTH_BODY, HEALTH_INIT)),
});

const documentResponse = {
  200: {
    description: "OpenAPI 3.1 document",
    content: {
      "application/json": z.object({ openapi: z.string(), info: z.object({}).loose() }).loose(),
    },
  },
};

/** GET /openapi.json: the user API's document (served on the user ingress). */
export function openApiRoute(document: () => unknown): RawRoute {
  return defineRawRoute({
    method: "GET",
    path: "/openapi.json",
    operationId: "system-openapi",
    summary: "This OpenAPI document",
    tags: ["system"],
    auth: publicRoute,
    responses: documentResponse,
    handle: () => Promise.resolve(json(document())),
  });
}

/**
 * GET /internal/factory/openapi.json: the factory console's document, under its prefix so it is
 * served only where the console is (FACTORY_PORT when set).
 */
export function factoryOpenApiRoute(document: () => unknown): RawRoute {
  return defineRawRoute({
    method: "GET",
    path: "/internal/factory/openapi.json",
    operationId: "factory-openapi",
    summary: "This OpenAPI document",
    tags: ["system"],
    auth: publicRoute,
    responses: documentResponse,
    handle: () => Promise.resolve(json(document())),
  });
}
