import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { deliveryPageSchema } from "./views.ts";

/** GET /api/webhooks/{id}/deliveries: newest first, each with every attempt. */
export const listDeliveries = userOrPatProcedure
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
