import { z } from "zod";
import { withExample } from "../../infra/http/operation.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { webhookSettingsSchema } from "./views.ts";

/** PUT /api/webhooks/settings: `device.battery_low` fires at or below this percentage. */
export const setSettings = userOrPatProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/webhooks/settings",
      tags: ["webhooks"],
      summary: "Set the battery threshold of device.battery_low",
      errorResponses: { ...AUTH_ERRORS, 400: "batteryLowThreshold is not an integer 1-99" },
    },
  })
  .input(withExample(
    z.object({
      batteryLowThreshold: z.number().int("must be an integer").min(1, "must be at least 1")
        .max(99, "must be at most 99"),
    }),
    { batteryLowThreshold: 20 },
  ))
  .output(webhookSettingsSchema)
  .mutation(({ ctx, input }) => ctx.services.webhooks.setSettings(ctx.caller.userId, input));
