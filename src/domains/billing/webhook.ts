/**
 * POST /auth/webhook/stripe (SPEC 4.4, 5.6, 6). A raw route: the signature covers the exact
 * bytes of the body, so it is verified before any JSON parsing.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { defineRawRoute, type RawAuth } from "../../infra/http/raw.ts";

/** Stripe's events are well under this; anything larger is not from the provider. */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

/**
 * SPEC 5.6: no bearer; the provider's signature header is the credential. Its presence (and a
 * configured secret) is checked before the body is read; the HMAC once it is.
 */
const signatureHeader: RawAuth<{ signature: string; secret: string }> = {
  access: { credentials: [], errors: { 400: "Missing signature header or no signing secret" } },
  check(ctx, req) {
    const secret = ctx.services.config.stripe.webhookSecret;
    // CONTRACT.md: without a signing secret nothing can be verified, so everything is refused.
    if (!secret) throw new AppError("invalid_request", "Webhook signing secret is not configured");
    // CONTRACT.md: `Payment-Signature` is accepted as the same header as `Stripe-Signature`.
    const signature = req.headers.get("stripe-signature") ?? req.headers.get("payment-signature");
    if (!signature) throw new AppError("invalid_request", "Missing signature header");
    return Promise.resolve({ signature, secret });
  },
};

export const stripeWebhook = defineRawRoute({
  method: "POST",
  path: "/auth/webhook/stripe",
  operationId: "billing-webhook",
  summary: "Payment provider webhook",
  tags: ["billing"],
  auth: signatureHeader,
  headers: z.object({
    "Stripe-Signature": z.string().meta({
      description: "`t=<unix>,v1=<hex HMAC-SHA256>`; `Payment-Signature` is accepted too",
    }),
  }),
  body: {
    kind: "bytes",
    contentType: "application/json",
    limit: WEBHOOK_BODY_LIMIT,
    docSchema: z.object({ id: z.string(), type: z.string() }).loose(),
    example: {
      id: "evt_1QxYz2AbCdEfGhIj",
      object: "event",
      type: "checkout.session.completed",
      created: 1795686978,
      data: {
        object: {
          id: "cs_test_a1B2c3D4e5F6",
          object: "checkout.session",
          mode: "subscription",
          client_reference_id: "0193a0c0-1b2c-7d3e-8f4a-5b6c7d8e9f01",
          customer: "cus_R2d2C3po4Bb8",
          subscription: "sub_1QxYz2AbCdEf",
          metadata: {
            userId: "0193a0c0-1b2c-7d3e-8f4a-5b6c7d8e9f01",
            plan: "pro",
            interval: "monthly",
          },
        },
      },
    },
  },
  responses: {
    200: { description: "Processed, replayed or ignored; empty body" },
    400: { description: "Missing or invalid signature, or no signing secret configured" },
    413: { description: "Body over 512 KiB" },
    500: { description: "Processing failed; nothing was written and the provider retries" },
  },
  async handle({ ctx, auth, body }) {
    let event;
    try {
      // Constant-time HMAC-SHA256 comparison over `t.body` with a 300 s tolerance window.
      // The SDK loads with the first signed event (issue 26).
      const { verifyWebhook } = await import("./stripe_client.ts");
      event = await verifyWebhook(body, auth.signature, auth.secret);
    } catch {
      throw new AppError("invalid_request", "Invalid webhook signature");
    }
    await ctx.services.billing.applyEvent(event as unknown as Record<string, unknown>);
    // SPEC 6: each event is acknowledged with an empty 200.
    return new Response(null, { status: 200 });
  },
});
