/** Every raw route of the service, in match order. Domains add theirs here. */
import type { RawRoute } from "./http/raw.ts";
import { health } from "./http/system_routes.ts";
import { deleteAccount } from "./accounts/delete_account.ts";
import { stripeWebhook } from "./billing/webhook.ts";
import { appleStart, googleStart } from "./oauth/start.ts";
import { appleCallback, googleCallback } from "./oauth/callbacks.ts";

export const domainRawRoutes: RawRoute[] = [
  health,
  deleteAccount,
  stripeWebhook,
  googleStart,
  googleCallback,
  appleStart,
  appleCallback,
];
