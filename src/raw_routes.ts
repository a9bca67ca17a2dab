/** Every raw route of the service, in match order. A domain declares its own in its `mod.ts`. */
import type { RawRoute } from "./infra/http/raw.ts";
import { factoryOpenApiRoute, health, openApiRoute } from "./infra/http/system_routes.ts";
import { DOMAINS } from "./domains.ts";
import { consoleRoutes } from "./infra/pages/console.ts";
import { docsRoutes } from "./infra/pages/docs.ts";
import { playgroundRoutes } from "./infra/pages/playground.ts";
import { metricsRoute } from "./infra/metrics/route.ts";
import { Readiness, readyRoute } from "./infra/http/readiness.ts";

/** `/health`, then each domain's raw routes in the order of `src/domains.ts`, then the pages. */
export const domainRawRoutes: RawRoute[] = [
  health,
  ...DOMAINS.flatMap((domain) => "rawRoutes" in domain ? domain.rawRoutes : []),
  // Pages for people: the API reference of each ingress and the render playground (issue 14),
  // the owner's console (issue 38).
  ...docsRoutes(""),
  ...docsRoutes("/internal/factory"),
  ...playgroundRoutes,
  ...consoleRoutes,
];

/** The documents the service serves, built on first use. */
export interface Documents {
  user: () => unknown;
  factory: () => unknown;
}

/** `/metrics` where a listener does not serve it (and in the committed documents). */
const METRICS_NOT_SERVED = metricsRoute({
  served: false,
  scrape: () => Promise.resolve({ text: "", contentType: "text/plain" }),
});

/** `/ready` of a process without components (the committed documents): always 503. */
const READY_WITHOUT_CHECKS = readyRoute(new Readiness());

/**
 * The raw routes including the routes of the two OpenAPI documents, `/metrics` (its rule
 * depends on the listener: src/infra/metrics/route.ts) and `/ready` (over the process's components).
 */
export function allRawRoutes(
  documents: Documents,
  metrics = METRICS_NOT_SERVED,
  ready = READY_WITHOUT_CHECKS,
): RawRoute[] {
  return [
    ...domainRawRoutes,
    ready,
    openApiRoute(documents.user),
    factoryOpenApiRoute(documents.factory),
    metrics,
  ];
}
