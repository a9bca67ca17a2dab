import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { PUSH_ERRORS } from "./meta.ts";
import { withExample } from "../../infra/http/operation.ts";

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
  .input(withExample(z.object({ id: uuidParam, pushId: uuidParam }), {
    id: "0193a0c0-5d2e-7c4b-9a1f-2b6e8d4c7a10",
    pushId: "0193a0c1-2f4e-7b3a-9c5d-6e7f8a9b0c1d",
  }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    ctx.services.pushes.setCurrent(ctx.caller.userId, input.id, input.pushId)
  );
