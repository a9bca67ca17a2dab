import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { analyzeRunPageSchema } from "./views.ts";

/** GET /api/analyze/runs: the caller's runs, newest first, paged like pushes. */
export const listAnalyzeRuns = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/analyze/runs",
      tags: ["analyze"],
      summary: "List the caller's analyze runs",
      errorResponses: { 400: "Invalid limit or cursor", 401: "Unauthorized" },
    },
  })
  .input(z.object({
    cursor: z.string().optional(),
    limit: z.coerce.number().int().min(1, "must be at least 1").optional()
      .meta({ description: "default 20; values over 50 are capped at 50" }),
  }))
  .output(analyzeRunPageSchema)
  .query(({ ctx, input }) => ctx.services.analyze.listRuns(ctx.caller.userId, input));
