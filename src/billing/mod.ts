/** The billing domain's face (SPEC 7): plans, checkout, the portal and Stripe's webhook. */
import { defineDomain } from "../domain.ts";
import { billingRouter } from "./router.ts";
import { stripeWebhook } from "./webhook.ts";

export const billing = defineDomain({
  name: "billing",
  router: billingRouter,
  rawRoutes: [stripeWebhook],
});
