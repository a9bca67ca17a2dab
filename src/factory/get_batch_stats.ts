import { z } from "zod";
import { ANY_ROLE } from "./principals.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { batchSchema, countsSchema } from "./views.ts";

export const batchStatsSchema = z.object({ batch: batchSchema, counts: countsSchema })
  .meta({ id: "FactoryBatchStats" });

/** GET /internal/factory/batches/{batchId}/stats (SPEC 2.14 batch statistics). */
export const getBatchStats = factoryProcedure(ANY_ROLE, "stats.read")
  .meta(factoryMeta("GET", "/batches/{batchId}/stats", "Batch statistics", {
    400: "batchId is not a UUID",
    404: "Batch not found or outside the scope",
  }))
  .input(z.object({ batchId: z.string() }))
  .output(batchStatsSchema)
  .query(({ ctx, input }) => ctx.services.factory.batchStats(ctx.principal, input.batchId));
