import { z } from "zod";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { batchStatsSchema } from "./get_batch_stats.ts";
import { countsSchema } from "./views.ts";
import { uuidParam } from "../../infra/lib/params.ts";

const globalStatsSchema = z.object({ batches: z.number().int(), counts: countsSchema })
  .meta({ id: "FactoryGlobalStats" });

/**
 * GET /internal/factory/stats: with `batchId` the batch statistics, without it the same counts
 * over every batch in the principal's scope plus the number of batches.
 */
export const getStats = factoryProcedure("getStats")
  .meta(factoryMeta("GET", "/stats", "Statistics, per batch or global", {
    400: "batchId is not a UUID",
    404: "Batch not found or outside the scope",
  }))
  .input(z.object({ batchId: uuidParam.optional() }))
  .output(z.union([batchStatsSchema, globalStatsSchema]))
  .query(({ ctx, input }) =>
    input.batchId
      ? ctx.services.factory.batches.stats(ctx.principal, input.batchId)
      : ctx.services.factory.batches.globalStats(ctx.principal)
  );
