import { z } from "zod";
import { userProcedure } from "../../infra/trpc/auth.ts";
import { invoiceSchema } from "./views.ts";

/** GET /auth/subscription/invoices: the caller's invoices at the provider (SPEC 2.5). */
export const listInvoices = userProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/auth/subscription/invoices",
      tags: ["billing"],
      summary: "The caller's invoices",
      errorResponses: { 401: "Unauthorized" },
    },
  })
  .input(z.void())
  .output(z.object({ invoices: z.array(invoiceSchema) }))
  .query(({ ctx }) => ctx.services.billing.listInvoices(ctx.caller.userId));
