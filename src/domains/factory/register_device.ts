import { z } from "zod";
import { idempotencyKey, uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { SERIAL } from "./inputs.ts";
import { registeredDeviceSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

const text = z.string().trim().min(1).max(100);

/**
 * POST /internal/factory/devices: 201 new device, 200 on an Idempotency-Key replay. hwId and
 * thingName are assigned by the service; the body cannot set them (strict schema).
 */
export const registerDevice = factoryProcedure("registerDevice")
  .meta({
    ...factoryMeta("POST", "/devices", "Register a device", {
      400: "Invalid body or Idempotency-Key",
      403: "Auditor, or batch / SKU outside the scope",
      404: "Batch not found",
      409: "Serial taken in the batch, Idempotency-Key reused with another body, or batch closed",
    }, {
      // Checked by the service with the same pattern (SPEC 8).
      requestHeaders: z.object({ "Idempotency-Key": idempotencyKey }),
    }),
    status: 201,
    statuses: { 200: "Idempotency-Key replay: the device the first request registered" },
  })
  .input(
    withExample(
      z.object({
        batchId: uuidParam,
        serial: z.string().regex(SERIAL, "must be 1-64 letters, digits or ._:-").optional(),
        sku: text.optional(),
        hwRevision: text.optional(),
      }).strict(),
      { batchId: "0193a0c1-5c7d-7e8f-9a0b-1c2d3e4f5a6b", serial: "SN0001" },
    ),
  )
  .output(registeredDeviceSchema)
  .mutation(async ({ ctx, input }) => {
    const key = ctx.req.headers.get("idempotency-key") ?? undefined;
    const result = await ctx.services.factory.registration.register(ctx.principal, input, key);
    if (!result.created) ctx.response.status = 200;
    return result.device;
  });
