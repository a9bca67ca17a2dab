import { z } from "zod";
import { uuidParam } from "../lib/params.ts";
import { userOrPatProcedure } from "../trpc/auth.ts";
import { PUSH_ERRORS } from "./meta.ts";

/** POST /api/devices/{id}/current-push: show this rendered push now; `new_push` over MQTT. */
export const setCurrentPush = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/devices/{id}/current-push",
      tags: ["pushes"],
      summary: "Make a push the device's current one",
      errorResponses: { ...PUSH_ERRORS, 404: "Device not found, or push missing or not rendered" },
    },
  })
  .input(z.object({ id: uuidParam, pushId: uuidParam }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    ctx.services.pushes.setCurrent(ctx.caller.userId, input.id, input.pushId)
  );
