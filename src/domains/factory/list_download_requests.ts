import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { paging } from "./inputs.ts";
import { downloadRequestSchema, pageOf } from "./views.ts";

/** GET /internal/factory/download-requests: requests in scope (an operator's own only). */
export const listDownloadRequests = factoryProcedure("listDownloadRequests")
  .meta(
    factoryMeta("GET", "/download-requests", "List download requests", { 400: "Invalid query" }),
  )
  .input(z.object({
    status: z.enum(["pending", "approved", "rejected"]).optional(),
    batchId: uuidParam.optional(),
    ...paging(50, 200),
  }))
  .output(pageOf(downloadRequestSchema))
  .query(({ ctx, input }) => ctx.services.factory.downloads.listRequests(ctx.principal, input));
