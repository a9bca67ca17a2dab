import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";

/**
 * POST /api/analyze/trigger: queues a MANUAL analyze run (SPEC 4.6); with one already queued or
 * running nothing is added, and the answer is the same.
 */
export const triggerAnalyze = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/analyze/trigger",
      tags: ["analyze"],
      summary: "Queue an analyze run",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(z.object({ status: z.literal("queued") }))
  .mutation(async ({ ctx }) => {
    await ctx.services.analyze.trigger(ctx.caller.userId, "MANUAL");
    return { status: "queued" as const };
  });
