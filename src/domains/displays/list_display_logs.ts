import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";
import { logPageSchema } from "./views.ts";

/** GET /api/devices/{id}/logs: a display's own log entries, newest first. */
export const listDisplayLogs = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/logs",
      tags: ["displays"],
      summary: "List a display's log entries",
      errorResponses: { ...OWNER_ERRORS, 400: "Invalid device id, limit or cursor" },
    },
  })
  .input(z.object({
    id: uuidParam,
    cursor: z.string().optional(),
    limit: z.coerce.number().int().min(1, "must be at least 1").optional()
      .meta({ description: "default 20; values over 50 are capped at 50" }),
  }))
  .output(logPageSchema)
  .query(({ ctx, input }) => {
    const { id, ...query } = input;
    return ctx.services.displays.logs.list(ctx.caller.userId, id, query);
  });
