/** Row-to-API mapping of billing (SPEC 2.4, 2.5). */
import { z } from "zod";
import { timestamp } from "../../infra/lib/wire.ts";
import type { Selectable } from "kysely";
import type Stripe from "stripe";
import type { SubscriptionsTable } from "./tables.ts";

export const subscriptionSchema = z.object({
  status: z.string(),
  plan: z.string().nullable(),
  interval: z.string().nullable(),
  currentPeriodStart: timestamp.nullable(),
  currentPeriodEnd: timestamp.nullable(),
  cancelAtPeriodEnd: z.boolean(),
  paymentCustomerId: z.string().nullable(),
  paymentSubscriptionId: z.string().nullable(),
}).meta({ id: "Subscription" });

export const invoiceSchema = z.object({
  id: z.string(),
  date: timestamp,
  amount: z.number().int(),
  currency: z.string(),
  status: z.string(),
  invoiceUrl: z.string(),
  pdfUrl: z.string(),
}).meta({ id: "Invoice" });

export const urlSchema = z.object({ url: z.string() });

type SubscriptionView = z.infer<typeof subscriptionSchema>;

/** `GET /auth/subscription`: status `none` and nulls for a user who never reached billing. */
export function toSubscription(row: Selectable<SubscriptionsTable> | undefined): SubscriptionView {
  return {
    status: row?.status ?? "none",
    plan: row?.plan ?? null,
    interval: row?.interval ?? null,
    currentPeriodStart: row?.current_period_start?.toISOString() ?? null,
    currentPeriodEnd: row?.current_period_end?.toISOString() ?? null,
    cancelAtPeriodEnd: row?.cancel_at_period_end ?? false,
    paymentCustomerId: row?.payment_customer_id ?? null,
    paymentSubscriptionId: row?.payment_subscription_id ?? null,
  };
}

/** An invoice of the provider as SPEC 2.5 lists it. */
export function toInvoice(invoice: Stripe.Invoice): z.infer<typeof invoiceSchema> {
  return {
    id: invoice.id ?? "",
    date: new Date(invoice.created * 1000).toISOString(),
    amount: invoice.amount_due,
    currency: invoice.currency,
    status: invoice.status ?? "draft",
    invoiceUrl: invoice.hosted_invoice_url ?? "",
    pdfUrl: invoice.invoice_pdf ?? "",
  };
}
