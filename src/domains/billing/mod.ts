/** The billing domain's face (SPEC 7): plans, checkout, the portal and Stripe's webhook. */
import { buildWith, defineDomain } from "../../face.ts";
import { billingRouter } from "./router.ts";
import { BillingService } from "./service.ts";
import type { StripeClient } from "./stripe_client.ts";
import { stripeWebhook } from "./webhook.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { BillingTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    billing: BillingService;
  }
}

export const billing = defineDomain({
  name: "billing",
  tags: {
    billing:
      "The pro subscription, checkout, portal, invoices and the provider's webhook (SPEC 4.4)",
  },
  router: billingRouter,
  rawRoutes: [stripeWebhook],
  hooks: {
    // SPEC 4.1: a live subscription is cancelled before the account is deleted.
    cancelBeforeAccountDeletion: ({ services }) => (user) =>
      services.billing.cancelForDeletion(user.id),
  },
  build: buildWith([], ({ db, config, publicBaseUrl }) => {
    // The SDK (~10 MB of the request thread) loads with the first call that needs it (issue 26).
    let client: Promise<StripeClient> | undefined;
    const stripe = config.stripe.secretKey
      ? () =>
        client ??= import("./stripe_client.ts").then(({ createStripe }) =>
          createStripe(config.stripe)!
        )
      : null;
    return { billing: new BillingService(db, config, stripe, publicBaseUrl) };
  }),
});
