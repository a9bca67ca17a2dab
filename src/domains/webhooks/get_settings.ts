import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { webhookSettingsSchema } from "./views.ts";

/** GET /api/webhooks/settings: the battery threshold of `device.battery_low`. */
export const getSettings = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/webhooks/settings",
      tags: ["webhooks"],
      summary: "Read the webhook settings (battery threshold)",
      errorResponses: AUTH_ERRORS,
    },
  })
  .input(z.void())
  .output(webhookSettingsSchema)
  .query(({ ctx }) => ctx.services.webhooks.settings(ctx.caller.userId));
