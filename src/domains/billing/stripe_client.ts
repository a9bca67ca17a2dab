/** The payment provider's SDK, built once from the configuration (STACK.md: stripe on Deno). */
import Stripe from "stripe";
import type { Config } from "../../config.ts";

/** A Stripe client, or null when `STRIPE_SECRET_KEY` is unset (checkout and portal answer 503). */
export function createStripe(config: Config["stripe"]): Stripe | null {
  if (!config.secretKey) return null;
  const options: ConstructorParameters<typeof Stripe>[1] = {
    // Fetch instead of node:http: smaller surface on Deno, and it honours `protocol: "http"`.
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 1,
    timeout: 20_000,
  };
  if (config.apiUrl) {
    // Tests and self-hosted mocks: a Stripe-compatible API at another origin.
    const url = new URL(config.apiUrl);
    options.host = url.hostname;
    options.port = url.port || (url.protocol === "https:" ? "443" : "80");
    options.protocol = url.protocol === "https:" ? "https" : "http";
  }
  return new Stripe(config.secretKey, options);
}

/** Web Crypto for webhook signatures: the sync Node provider throws on Deno (STACK.md). */
export const webhookCrypto = Stripe.createSubtleCryptoProvider();

/** Verifies a webhook signature over the raw body and parses the event; throws when invalid. */
export function verifyWebhook(
  rawBody: Uint8Array,
  signatureHeader: string,
  secret: string,
  toleranceSeconds = 300,
) {
  return Stripe.webhooks.constructEventAsync(
    rawBody,
    signatureHeader,
    secret,
    toleranceSeconds,
    webhookCrypto,
  );
}

export type StripeClient = Stripe;
