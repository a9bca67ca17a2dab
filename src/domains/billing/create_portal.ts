import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { urlSchema } from "./views.ts";

/** POST /auth/subscription/portal: the URL of the provider's hosted billing portal. */
export const createPortal = userProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/auth/subscription/portal",
      tags: ["billing"],
      summary: "Open the hosted billing portal",
      errorResponses: { 401: "Unauthorized", 503: "Billing is not configured" },
    },
  })
  .input(z.object({}).optional())
  .output(urlSchema)
  .mutation(({ ctx }) =>
    ctx.services.billing.createPortal(
      ctx.caller.userId,
      ctx.req.headers.get("origin"),
    )
  );
