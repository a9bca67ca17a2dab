/** Builds the OpenAPI document: the tRPC procedures plus the raw routes. */
import { generateOpenApiDocument } from "trpc-to-openapi";
import { appRouter } from "../router.ts";
import type { RawRoute } from "../http/raw.ts";
import { allRawRoutes } from "../raw_routes.ts";

export const API_VERSION = "0.1.0";

/** The whole document; deterministic, so the committed copy can be compared byte for byte. */
export function buildOpenApiDocument(raw: RawRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of raw) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = route.doc;
  }
  return generateOpenApiDocument(appRouter, {
    title: "Device Display Service",
    description: "Accounts, devices, pushes, targetless presentations and the factory console.",
    version: API_VERSION,
    baseUrl: "http://localhost:8080",
    securitySchemes: {
      Authorization: {
        type: "http",
        scheme: "bearer",
        description: "User access token (JWT), personal access token (pat_…) or factory token",
      },
    },
    // deno-lint-ignore no-explicit-any
    paths: paths as any,
  });
}

/** The document as committed in `openapi/openapi.json`: two-space JSON, trailing newline. */
export function renderOpenApi(): string {
  const raw: RawRoute[] = allRawRoutes(() => ({}));
  return JSON.stringify(buildOpenApiDocument(raw), null, 2) + "\n";
}
