/** Signed Stripe webhook deliveries for tests that move a user's plan the way production does. */
import Stripe from "stripe";
import { expectStatus } from "./assert.ts";
import type { Client } from "./http.ts";

const crypto = Stripe.createSubtleCryptoProvider();
let seq = 0;

/** A Stripe event of `type` with `object`, and its `Stripe-Signature` header for `secret`. */
export async function signedEvent(
  secret: string,
  type: string,
  object: Record<string, unknown>,
  created = Math.floor(Date.now() / 1000) + seq,
) {
  const payload = JSON.stringify({
    id: `evt_tl_${Date.now().toString(36)}_${seq++}`,
    object: "event",
    api_version: "2025-01-27.acacia",
    created,
    livemode: false,
    type,
    data: { object },
  });
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    cryptoProvider: crypto,
  });
  return { payload, signature };
}

/** Delivers `type` with `object`, signed with `secret`, created `created` (Unix seconds). */
export async function deliverEvent(
  api: Client,
  secret: string,
  type: string,
  object: Record<string, unknown>,
  created?: number,
) {
  const { payload, signature } = await signedEvent(secret, type, object, created);
  expectStatus(
    await api.post("/auth/webhook/stripe", {
      raw: payload,
      headers: { "content-type": "application/json", "Stripe-Signature": signature },
    }),
    200,
  );
}

/** The Stripe objects of one user's subscription. */
export function stripeObjects(userId: string) {
  const customer = `cus_${userId.slice(-12)}`;
  const subscription = `sub_${userId.slice(-12)}`;
  return {
    checkout: {
      id: `cs_${subscription}`,
      object: "checkout.session",
      mode: "subscription",
      client_reference_id: userId,
      customer,
      subscription,
      metadata: { userId, plan: "pro", interval: "monthly" },
      status: "complete",
    },
    failedInvoice: {
      id: `in_${subscription}_${seq++}`,
      object: "invoice",
      customer,
      parent: { subscription_details: { subscription, metadata: {} } },
      lines: { object: "list", data: [] },
    },
    subscription: (status: string) => ({
      id: subscription,
      object: "subscription",
      customer,
      status,
      cancel_at_period_end: false,
      metadata: {},
      items: {
        object: "list",
        data: [{
          id: `si_${subscription}`,
          current_period_start: 1767225600,
          current_period_end: 1769904000,
          price: { id: "price_monthly_pro", recurring: { interval: "month" } },
        }],
      },
    }),
  };
}
