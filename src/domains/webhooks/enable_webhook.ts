import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { webhookSchema } from "./views.ts";

/** POST /api/webhooks/{id}/enable: the owner re-enables a webhook its failures disabled. */
export const enableWebhook = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/webhooks/{id}/enable",
      tags: ["webhooks"],
      summary: "Re-enable a disabled webhook",
      successDescription:
        "The webhook, active with its failures forgotten; events from now on are delivered",
      errorResponses: { ...AUTH_ERRORS, 400: "id is not a UUID", 404: "Webhook not found" },
    },
  })
  .input(z.object({ id: uuidParam }))
  .output(webhookSchema)
  .mutation(({ ctx, input }) => ctx.services.webhooks.enable(ctx.caller.userId, input.id));
