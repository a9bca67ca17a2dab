import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { batchSchema, countsSchema } from "./views.ts";

export const batchStatsSchema = z.object({ batch: batchSchema, counts: countsSchema })
  .meta({ id: "FactoryBatchStats" });

/** GET /internal/factory/batches/{batchId}/stats (SPEC 2.14 batch statistics). */
export const getBatchStats = factoryProcedure("getBatchStats")
  .meta(factoryMeta("GET", "/batches/{batchId}/stats", "Batch statistics", {
    400: "batchId is not a UUID",
    404: "Batch not found or outside the scope",
  }))
  .input(z.object({ batchId: uuidParam }))
  .output(batchStatsSchema)
  .query(({ ctx, input }) => ctx.services.factory.batches.stats(ctx.principal, input.batchId));
