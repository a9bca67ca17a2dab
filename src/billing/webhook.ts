/**
 * POST /auth/webhook/stripe (SPEC 4.4, 5.6, 6). A raw route: the signature covers the exact
 * bytes of the body, so it must be verified before any JSON parsing.
 */
import { AppError } from "../errors.ts";
import { readLimited } from "../http/body.ts";
import type { RawRoute } from "../http/raw.ts";
import { verifyWebhook } from "./stripe_client.ts";

/** Stripe's events are well under this; anything larger is not from the provider. */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

export const stripeWebhook: RawRoute = {
  method: "POST",
  path: "/auth/webhook/stripe",
  async handle(req, ctx) {
    const secret = ctx.services.config.stripe.webhookSecret;
    // CONTRACT.md: without a signing secret nothing can be verified, so everything is refused.
    if (!secret) throw new AppError("invalid_request", "Webhook signing secret is not configured");
    // CONTRACT.md: `Payment-Signature` is accepted as the same header as `Stripe-Signature`.
    const signature = req.headers.get("stripe-signature") ?? req.headers.get("payment-signature");
    if (!signature) throw new AppError("invalid_request", "Missing signature header");
    const body = await readLimited(req, WEBHOOK_BODY_LIMIT);
    let event;
    try {
      // Constant-time HMAC-SHA256 comparison over `t.body` with a 300 s tolerance window.
      event = await verifyWebhook(body, signature, secret);
    } catch {
      throw new AppError("invalid_request", "Invalid webhook signature");
    }
    await ctx.services.billing.applyEvent(event as unknown as Record<string, unknown>);
    // SPEC 6: each event is acknowledged with an empty 200.
    return new Response(null, { status: 200 });
  },
  doc: {
    tags: ["billing"],
    summary: "Payment provider webhook",
    parameters: [{
      name: "Stripe-Signature",
      in: "header",
      required: true,
      schema: { type: "string" },
      description: "`t=<unix>,v1=<hex HMAC-SHA256>`; `Payment-Signature` is accepted too",
    }],
    requestBody: {
      required: true,
      content: { "application/json": { schema: { type: "object" } } },
    },
    responses: {
      200: { description: "Processed, replayed or ignored; empty body" },
      400: { description: "Missing or invalid signature, or no signing secret configured" },
      500: { description: "Processing failed; nothing was written and the provider retries" },
    },
  },
};
