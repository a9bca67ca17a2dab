import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { urlSchema } from "./views.ts";
import { withExample } from "../../infra/http/operation.ts";

/** POST /auth/subscription/checkout: the URL of a hosted checkout page for the pro plan. */
export const createCheckout = userProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/auth/subscription/checkout",
      tags: ["billing"],
      summary: "Start a hosted checkout for the pro plan",
      errorResponses: {
        400: "Invalid interval",
        401: "Unauthorized",
        409: "The user already has an active subscription",
        503: "Billing is not configured",
      },
    },
  })
  .input(withExample(
    z.object({
      interval: z.enum(["monthly", "yearly"], "interval must be monthly or yearly"),
    }),
    { interval: "monthly" },
  ))
  .output(urlSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.billing.createCheckout(
      ctx.caller.userId,
      input.interval,
      ctx.req.headers.get("origin"),
    )
  );
