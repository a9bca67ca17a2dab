import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { OWNER_ERRORS } from "./meta.ts";

/** GET /api/devices/{id}/nickname: falls back to hwId when unset. */
export const getNickname = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/devices/{id}/nickname",
      tags: ["devices"],
      summary: "Read a device's nickname",
      errorResponses: OWNER_ERRORS,
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(z.object({ nickname: z.string() }))
  .query(({ ctx, input }) => ctx.services.devices.getNickname(ctx.caller.userId, input.id));
