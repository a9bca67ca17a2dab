import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { subscriptionSchema } from "./views.ts";

/** GET /auth/subscription: the caller's subscription (SPEC 2.4); status `none` before any. */
export const getSubscription = userProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/auth/subscription",
      tags: ["billing"],
      summary: "The caller's subscription",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(subscriptionSchema)
  .query(({ ctx }) => ctx.services.billing.getSubscription(ctx.caller.userId));
