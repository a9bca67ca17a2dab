import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { formatQuery, PUSH_ERRORS } from "./meta.ts";
import { parseFormat, pushUrlSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /api/devices/{id}/push/refresh: the next queued push replaces the latest (rule 2). */
export const refreshPush = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/push/refresh",
      tags: ["pushes"],
      summary: "Rotate to the next queued push",
      description: "`format` (png | raw2 | raw4) is read from the query string or the body.",
      errorResponses: PUSH_ERRORS,
    },
  })
  .input(withExample(z.object({ id: uuidParam, format: formatQuery }), {
    id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10",
    format: "png",
  }))
  .output(pushUrlSchema)
  .mutation(({ ctx, input }) => {
    // SPEC 4.5 puts `format` in the query; trpc-to-openapi reads POST input from the body only.
    const format = input.format ?? new URL(ctx.req.url).searchParams.get("format");
    return ctx.services.pushes.refresh(ctx.caller.userId, input.id, parseFormat(format));
  });
