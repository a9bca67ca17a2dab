import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "./meta.ts";

/** POST /api/devices/{id}/unbind: the device becomes claimable; MQTT `unbound` follows. */
export const unbindDevice = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/unbind",
      tags: ["devices"],
      summary: "Unbind a device",
      errorResponses: OWNER_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) => ctx.services.devices.unbind(ctx.caller.userId, input.id));
