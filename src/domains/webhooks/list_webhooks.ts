import { z } from "zod";
import { userOrPatProcedure } from "../../infra/trpc/auth.ts";
import { AUTH_ERRORS } from "./meta.ts";
import { webhookSchema } from "./views.ts";

/** GET /api/webhooks: the caller's webhooks, without their secrets. */
export const listWebhooks = userOrPatProcedure
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
