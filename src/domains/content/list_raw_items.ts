import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { RAW_ITEM_STATUSES } from "./tables.ts";
import { rawItemPageSchema } from "./views.ts";

/** GET /api/raw-items: the caller's items, newest first, keyset cursor. */
export const listRawItems = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/raw-items",
      tags: ["content"],
      summary: "List the caller's raw items",
      errorResponses: { 400: "Invalid status, limit or cursor", 401: "Unauthorized" },
    },
  })
  .input(z.object({
    status: z.enum(RAW_ITEM_STATUSES).optional(),
    cursor: z.string().optional(),
    limit: z.coerce.number().int().min(1, "must be at least 1")
      .max(50, "must be at most 50").optional()
      .meta({ description: "1-50, default 20" }),
  }))
  .output(rawItemPageSchema)
  .query(({ ctx, input }) => ctx.services.content.list(ctx.caller.userId, input));
