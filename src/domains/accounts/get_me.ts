import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { oauthAccountSchema, subscriptionSummarySchema, userSchema } from "./views.ts";

/** GET /auth/me: the user with `oauthAccounts` and `subscription` (null until subscribed). */
export const getMe = userProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/auth/me",
      tags: ["accounts"],
      summary: "The signed-in user",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(userSchema.extend({
    oauthAccounts: z.array(oauthAccountSchema),
    subscription: subscriptionSummarySchema.nullable(),
  }))
  .query(({ ctx }) => ctx.services.accounts.getMe(ctx.caller.userId));
