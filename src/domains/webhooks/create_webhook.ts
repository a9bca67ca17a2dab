import { z } from "zod";
import { withExample } from "../../infra/http/operation.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { WEBHOOK_EVENTS } from "./events.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { createdWebhookSchema } from "./views.ts";

/** POST /api/webhooks: 201 with the signing `secret`, shown only here. */
export const createWebhook = userOrPatProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/webhooks",
      tags: ["webhooks"],
      summary: "Subscribe a URL to events",
      errorResponses: {
        ...AUTH_ERRORS,
        400: "Malformed url or events, a private or loopback target, or over 20 webhooks",
      },
    },
    status: 201,
  })
  .input(withExample(
    z.object({
      url: z.string().trim().max(2000, "must be at most 2000 characters"),
      events: z.array(z.enum(WEBHOOK_EVENTS)).min(1, "must name at least one event").max(
        WEBHOOK_EVENTS.length * 2,
      ),
    }),
    { url: "https://example.com/hooks/displays", events: ["push.published", "device.offline"] },
  ))
  .output(createdWebhookSchema)
  .mutation(({ ctx, input }) => ctx.services.webhooks.create(ctx.caller.userId, input));
