import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";

/** DELETE /api/webhooks/{id}: 204; another user's webhook is 404. */
export const deleteWebhook = userOrPatProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/webhooks/{id}",
      tags: ["webhooks"],
      summary: "Delete a webhook",
      successDescription: "Deleted (no body); pending deliveries are dropped",
      errorResponses: { ...AUTH_ERRORS, 400: "id is not a UUID", 404: "Webhook not found" },
    },
    status: 204,
  })
  .input(z.object({ id: uuidParam }))
  .output(z.void())
  .mutation(async ({ ctx, input }) => {
    await ctx.services.webhooks.remove(ctx.caller.userId, input.id);
  });
