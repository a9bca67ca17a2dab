/** Webhook procedures (CONTRACT.md "Integrations"): user token or PAT. */
import { z } from "zod";
import { withExample } from "../../infra/http/operation.ts";
import { uuidParam } from "../../infra/lib/params.ts";
import { router } from "../../infra/trpc/init.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { WEBHOOK_EVENTS } from "./events.ts";
import {
  createdWebhookSchema,
  deliveryPageSchema,
  webhookSchema,
  webhookSettingsSchema,
} from "./views.ts";

const AUTH_ERRORS = { 401: "Unauthorized" } as const;

/** POST /api/webhooks: 201 with the signing `secret`, shown only here. */
const createWebhook = userOrPatProcedure
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

/** GET /api/webhooks: the caller's webhooks, without their secrets. */
const listWebhooks = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/webhooks",
      tags: ["webhooks"],
      summary: "List webhooks",
      errorResponses: AUTH_ERRORS,
    },
  })
  .input(z.void())
  .output(z.array(webhookSchema))
  .query(({ ctx }) => ctx.services.webhooks.list(ctx.caller.userId));

/** DELETE /api/webhooks/{id}: 204; another user's webhook is 404. */
const deleteWebhook = userOrPatProcedure
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

/** POST /api/webhooks/{id}/enable: the owner re-enables a webhook its failures disabled. */
const enableWebhook = userOrPatProcedure
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

/** GET /api/webhooks/{id}/deliveries: newest first, each with every attempt. */
const listDeliveries = userOrPatProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/webhooks/{id}/deliveries",
      tags: ["webhooks"],
      summary: "List a webhook's deliveries and their attempts",
      errorResponses: {
        ...AUTH_ERRORS,
        400: "Invalid id, limit or cursor",
        404: "Webhook not found",
      },
    },
  })
  .input(z.object({
    id: uuidParam,
    cursor: z.string().optional(),
    limit: z.coerce.number().int().min(1, "must be at least 1").optional()
      .meta({ description: "default 20; values over 50 are capped at 50" }),
  }))
  .output(deliveryPageSchema)
  .query(({ ctx, input }) => {
    const { id, ...page } = input;
    return ctx.services.webhooks.deliveries(ctx.caller.userId, id, page);
  });

/** GET /api/webhooks/settings: the battery threshold of `device.battery_low`. */
const getSettings = userOrPatProcedure
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

/** PUT /api/webhooks/settings: `device.battery_low` fires at or below this percentage. */
const setSettings = userOrPatProcedure
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

// Settings before the `{id}` routes: `settings` is not a webhook id.
export const webhooksRouter = router({
  getSettings,
  setSettings,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  enableWebhook,
  listDeliveries,
});
