import { z } from "zod";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { paging } from "./inputs.ts";
import { batchSchema, pageOf } from "./views.ts";

/** GET /internal/factory/batches: the batches in the principal's scope. */
export const listBatches = factoryProcedure("listBatches")
  .meta(factoryMeta("GET", "/batches", "List batches", { 400: "Invalid query" }))
  .input(z.object({ status: z.enum(["open", "closed"]).optional(), ...paging(50, 200) }))
  .output(pageOf(batchSchema))
  .query(({ ctx, input }) => ctx.services.factory.batches.list(ctx.principal, input));
