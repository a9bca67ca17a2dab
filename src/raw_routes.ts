/** Every raw route of the service, in match order. Domains add theirs to `domainRawRoutes`. */
import type { RawRoute } from "./http/raw.ts";
import { factoryOpenApiRoute, health, openApiRoute } from "./http/system_routes.ts";
import { deleteAccount } from "./accounts/delete_account.ts";
import { stripeWebhook } from "./billing/webhook.ts";
import { appleStart, googleStart } from "./oauth/start.ts";
import { appleCallback, googleCallback } from "./oauth/callbacks.ts";
import { factoryRawRoutes } from "./factory/raw_routes.ts";
import { storageDownload, storageUpload } from "./storage/routes.ts";
import { contentRawRoutes } from "./content/raw_routes.ts";

export const domainRawRoutes: RawRoute[] = [
  health,
  deleteAccount,
  stripeWebhook,
  googleStart,
  googleCallback,
  appleStart,
  appleCallback,
  storageUpload,
  storageDownload,
  ...factoryRawRoutes,
  ...contentRawRoutes,
];

/** The documents the service serves, built on first use. */
export interface Documents {
  user: () => unknown;
  factory: () => unknown;
}

/** The raw routes including the routes of the two OpenAPI documents. */
export function allRawRoutes(documents: Documents): RawRoute[] {
  return [
    ...domainRawRoutes,
    openApiRoute(documents.user),
    factoryOpenApiRoute(documents.factory),
  ];
}
