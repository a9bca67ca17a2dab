/**
 * `GET /metrics`, Prometheus text format. Where it is served (issue 14): on the factory/internal
 * ingress when FACTORY_PORT is set, never on the public port unless METRICS_TOKEN is set; with
 * METRICS_TOKEN every ingress that serves it asks for `Authorization: Bearer <METRICS_TOKEN>`.
 * Without FACTORY_PORT the one shared port is the local-development setup (the factory console
 * is there too), so it serves `/metrics` as well.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { defineRawRoute, type RawAuth, type RawRoute } from "../http/raw.ts";
import { PUBLIC_ACCESS } from "../http/operation.ts";
import { timingSafeEqualString } from "../lib/crypto.ts";

/** Path of the metrics endpoint; served by every ingress the rule below allows. */
export const METRICS_PATH = "/metrics";

/** How one listener exposes the metrics. */
export interface MetricsExposure {
  /** False: the path answers 404 on this listener. */
  served: boolean;
  /** When set, the bearer token a scrape must send. */
  token?: string;
  scrape(): Promise<{ text: string; contentType: string }>;
}

/** The rule of the module comment: whether `ingress` serves `/metrics`. */
export function metricsServed(
  ingress: "combined" | "user" | "factory",
  token: string | undefined,
): boolean {
  return ingress !== "user" || token !== undefined;
}

/** The one check: 404 where not served, then the token compared in constant time. */
function metricsAuth(exposure: MetricsExposure): RawAuth<null> {
  return {
    access: PUBLIC_ACCESS,
    check(ctx) {
      if (!exposure.served) throw new AppError("not_found", "Not found");
      const { token } = exposure;
      // Both sides hashed before comparing: neither content nor length leaks through timing.
      if (token !== undefined && !timingSafeEqualString(ctx.bearer ?? "", token)) {
        throw new AppError("unauthorized", "A valid METRICS_TOKEN bearer is required", {
          "WWW-Authenticate": 'Bearer realm="metrics"',
        });
      }
      return Promise.resolve(null);
    },
  };
}

/** The route of one listener. */
export function metricsRoute(exposure: MetricsExposure): RawRoute {
  return defineRawRoute({
    method: "GET",
    path: METRICS_PATH,
    operationId: "system-metrics",
    summary: "Prometheus metrics",
    description: "Prometheus text format: HTTP requests, jobs, renders, MQTT and the database " +
      "pool (docs/operations.md). Served on the factory ingress when FACTORY_PORT is set; with " +
      "METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>` and is served on the " +
      "user port too.",
    tags: ["system"],
    auth: metricsAuth(exposure),
    responses: {
      200: {
        description: "The metrics",
        content: { "text/plain": z.string() },
      },
      401: { description: "METRICS_TOKEN is set and the bearer does not match" },
      404: { description: "Not served on this listener" },
    },
    async handle() {
      const { text, contentType } = await exposure.scrape();
      return new Response(text, {
        headers: { "content-type": contentType, "cache-control": "no-store" },
      });
    },
  });
}
