/** OpenAPI meta shared by the targetless procedures (SPEC 4.7, 7). */
import type { z } from "zod";
import type { ApiMeta, SuccessStatus } from "../../infra/trpc/init.ts";
import type { Surface } from "../../infra/trpc/surfaces.ts";

/** The OpenAPI meta of one targetless operation on a surface. */
export function targetlessMeta(
  surface: Surface,
  method: "GET" | "POST",
  path: string,
  summary: string,
  errorResponses: Record<number, string>,
  extra: {
    status?: SuccessStatus;
    successDescription?: string;
    requestHeaders?: z.ZodObject;
    responseHeaders?: z.ZodObject;
  } = {},
): ApiMeta {
  const { status, ...openapi } = extra;
  return {
    ...(status ? { status } : {}),
    openapi: {
      method,
      path: `${surface.prefix}${path}`,
      tags: [surface.name],
      summary,
      errorResponses,
      ...openapi,
    },
  };
}
