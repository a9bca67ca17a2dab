import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "./meta.ts";

/** GET /api/devices/{id}/state: the reported state parsed; 404 when none was reported. */
export const getState = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/state",
      tags: ["devices"],
      summary: "Read the state a device reported",
      errorResponses: { ...OWNER_ERRORS, 404: "Device not found or no state reported" },
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(z.record(z.string(), z.unknown()))
  .query(({ ctx, input }) => ctx.services.devices.getState(ctx.caller.userId, input.id));
