import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { rawItemStatsSchema } from "./views.ts";

/** GET /api/raw-items/stats: the last 7 UTC days (declared before `/api/raw-items/{id}`). */
export const getRawItemStats = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/raw-items/stats",
      tags: ["content"],
      summary: "Processing statistics of the last 7 days",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(rawItemStatsSchema)
  .query(({ ctx }) => ctx.services.content.getStats(ctx.caller.userId));
