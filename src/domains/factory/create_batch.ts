import { z } from "zod";
import { jsonInteger } from "../../infra/lib/json_number.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { batchSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

const text = z.string().trim().min(1).max(100);

/** POST /internal/factory/batches (supervisor): 201 batch; 409 for a taken order number. */
export const createBatch = factoryProcedure("createBatch")
  .meta({
    ...factoryMeta("POST", "/batches", "Create a batch", {
      400: "Invalid body",
      403: "Not a supervisor, or order number / SKU outside the scope",
      409: "Order number already exists",
    }),
    status: 201,
  })
  .input(
    withExample(
      z.object({
        orderNo: text,
        sku: text,
        hwRevision: text.optional(),
        plannedQuantity: jsonInteger((n) => n.min(0).max(10_000_000)).optional(),
        factoryId: text.optional(),
      }).strict(),
      { orderNo: "PO-2026-001", sku: "SKU-A", hwRevision: "r2", plannedQuantity: 100 },
    ),
  )
  .output(batchSchema)
  .mutation(({ ctx, input }) => ctx.services.factory.batches.create(ctx.principal, input));
