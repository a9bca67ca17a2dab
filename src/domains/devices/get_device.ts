import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "./meta.ts";
import { deviceSchema } from "./views.ts";

/** GET /api/devices/{id}: the device with `state` as an escaped string. */
export const getDevice = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}",
      tags: ["devices"],
      summary: "Read a device",
      errorResponses: OWNER_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(deviceSchema)
  .query(({ ctx, input }) => ctx.services.devices.get(ctx.caller.userId, input.id));
