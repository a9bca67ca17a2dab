/** The billing domain's face (SPEC 7): plans, checkout, the portal and Stripe's webhook. */
import type { Config } from "../../config.ts";
import { defineDomain } from "../../domain.ts";
import type { Db } from "../../schema.ts";
import { billingRouter } from "./router.ts";
import { BillingService } from "./service.ts";
import { createStripe } from "./stripe_client.ts";
import { stripeWebhook } from "./webhook.ts";

export const billing = defineDomain({
  name: "billing",
  router: billingRouter,
  rawRoutes: [stripeWebhook],
  build: ({ db, config }: { db: Db; config: Config }) =>
    new BillingService(db, config, createStripe(config.stripe)),
});
