import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { batchSchema } from "./views.ts";

/** GET /internal/factory/batches/{batchId}: 404 when missing or outside the scope. */
export const getBatch = factoryProcedure("getBatch")
  .meta(factoryMeta("GET", "/batches/{batchId}", "Get a batch", {
    400: "batchId is not a UUID",
    404: "Batch not found or outside the scope",
  }))
  .input(z.object({ batchId: uuidParam }))
  .output(batchSchema)
  .query(({ ctx, input }) => ctx.services.factory.batches.get(ctx.principal, input.batchId));
