/** Billing procedures (SPEC 4.4). The webhook is a raw route (`webhook.ts`). */
import { router } from "../../infra/trpc/init.ts";
import { getSubscription } from "./get_subscription.ts";
import { createCheckout } from "./create_checkout.ts";
import { createPortal } from "./create_portal.ts";
import { listInvoices } from "./list_invoices.ts";

export const billingRouter = router({
  getSubscription,
  createCheckout,
  createPortal,
  listInvoices,
});
