/** OpenAPI meta shared by the targetless procedures (SPEC 4.7, 7). */
import type { Surface } from "../trpc/surfaces.ts";

/** Statuses every targetless call may answer. */
export const AUTH_ERRORS = {
  401: "Missing, expired or invalid credential",
  403: "Wrong kind of credential for this surface",
} as const;

/** The OpenAPI meta of one targetless operation on a surface. */
export function targetlessMeta(
  surface: Surface,
  method: "GET" | "POST",
  path: string,
  summary: string,
  errorResponses: Record<number, string>,
  extra: { successDescription?: string; requestHeaders?: unknown } = {},
) {
  return {
    openapi: {
      method,
      path: `${surface.prefix}${path}`,
      tags: [surface.name],
      summary,
      protect: true,
      errorResponses: { ...AUTH_ERRORS, ...errorResponses },
      ...extra,
    },
    // deno-lint-ignore no-explicit-any -- requestHeaders is a zod object; the meta type is wide
  } as any;
}
