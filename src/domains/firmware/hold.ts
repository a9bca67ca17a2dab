/** The owner's hold on firmware updates of one device (issue 24). */
import { z } from "zod";
import { jsonBoolean, uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { withExample } from "../../infra/http/operation.ts";
import { OWNER_ERRORS } from "../devices/meta.ts";

const holdSchema = z.object({
  held: z.boolean().meta({ description: "true: the device is offered no firmware update" }),
  lastOfferAt: z.string().nullable().meta({ description: "When an update was last offered" }),
}).meta({ id: "FirmwareHold" });

/** GET /api/devices/{id}/firmware-hold (owner only: 403 another user's device). */
export const getFirmwareHold = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/firmware-hold",
      tags: ["devices"],
      summary: "Whether firmware updates of the device are held",
      errorResponses: OWNER_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(holdSchema)
  .query(async ({ ctx, input }) => {
    await ctx.services.devices.owned(ctx.caller.userId, input.id);
    return await ctx.services.firmwareUpdates.hold(input.id);
  });

/** PUT /api/devices/{id}/firmware-hold `{held}` (owner only). */
export const setFirmwareHold = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/devices/{id}/firmware-hold",
      tags: ["devices"],
      summary: "Hold or release firmware updates of the device",
      errorResponses: { ...OWNER_ERRORS, 400: "Invalid body or device id" },
    },
  })
  .input(withExample(
    z.object({ id: uuidParam, held: jsonBoolean }),
    { id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10", held: true },
  ))
  .output(holdSchema)
  .mutation(async ({ ctx, input }) => {
    await ctx.services.devices.owned(ctx.caller.userId, input.id);
    return await ctx.services.firmwareUpdates.setHold(input.id, input.held);
  });
