import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { paging } from "./inputs.ts";
import { deviceViewSchema, pageOf } from "./views.ts";

/** GET /internal/factory/devices: DeviceViews in scope, filtered and paged (SPEC 4.8, 8). */
export const listDevices = factoryProcedure("listDevices")
  .meta(factoryMeta("GET", "/devices", "List devices", { 400: "Invalid query" }))
  .input(z.object({
    batchId: uuidParam.optional(),
    lifecycleStatus: z.enum(["registered", "provisioned"]).optional(),
    nfcStatus: z.enum(["pending", "generated", "downloaded", "revoked"]).optional(),
    // STACK.md: z.coerce.boolean() turns "false" into true; stringbool reads it right.
    bound: z.stringbool().optional(),
    q: z.string().trim().min(1).max(100).optional(),
    ...paging(50, 200),
  }))
  .output(pageOf(deviceViewSchema))
  .query(({ ctx, input }) => ctx.services.factory.registration.list(ctx.principal, input));
