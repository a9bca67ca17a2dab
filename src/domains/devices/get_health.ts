import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "./meta.ts";
import { healthSchema } from "./views.ts";

/** GET /api/devices/{id}/health. */
export const getHealth = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/health",
      tags: ["devices"],
      summary: "Read a device's health",
      errorResponses: OWNER_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(healthSchema)
  .query(({ ctx, input }) => ctx.services.devices.getHealth(ctx.caller.userId, input.id));
