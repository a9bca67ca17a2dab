import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { CONTENT_ERRORS } from "./meta.ts";
import { analyzeRunSchema } from "./views.ts";

/** GET /api/analyze/runs/{id}: one of the caller's runs (404 otherwise). */
export const getAnalyzeRun = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/analyze/runs/{id}",
      tags: ["analyze"],
      summary: "Get an analyze run",
      errorResponses: { ...CONTENT_ERRORS, 400: "id is not a UUID" },
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(analyzeRunSchema)
  .query(({ ctx, input }) => ctx.services.analyze.getRun(ctx.caller.userId, input.id));
