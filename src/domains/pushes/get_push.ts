import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { formatQuery, PUSH_ERRORS } from "./meta.ts";
import { parseFormat, pushUrlSchema } from "./views.ts";

/** GET /api/devices/{id}/push: the latest push, or the best queued one promoted (rule 1). */
export const getPush = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/push",
      tags: ["pushes"],
      summary: "Get the device's current push",
      errorResponses: PUSH_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam, format: formatQuery }))
  .output(pushUrlSchema)
  .query(({ ctx, input }) =>
    ctx.services.pushes.get(ctx.caller.userId, input.id, parseFormat(input.format))
  );
