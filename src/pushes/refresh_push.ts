import { z } from "zod";
import { userProcedure } from "../trpc/auth.ts";
import { formatQuery, PUSH_ERRORS } from "./meta.ts";
import { parseFormat, pushUrlSchema } from "./views.ts";

/** POST /api/devices/{id}/push/refresh: the next queued push replaces the latest (rule 2). */
export const refreshPush = userProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/push/refresh",
      tags: ["pushes"],
      summary: "Rotate to the next queued push",
      protect: true,
      errorResponses: PUSH_ERRORS,
    },
  })
  .input(z.object({ id: z.string(), format: formatQuery }))
  .output(pushUrlSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.pushes.refresh(ctx.caller.userId, input.id, parseFormat(input.format))
  );
