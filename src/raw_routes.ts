/** Every raw route of the service, in match order. Domains add theirs to `domainRawRoutes`. */
import type { RawRoute } from "./http/raw.ts";
import { health, openApiRoute } from "./http/system_routes.ts";
import { deleteAccount } from "./accounts/delete_account.ts";
import { factoryRawRoutes } from "./factory/raw_routes.ts";

export const domainRawRoutes: RawRoute[] = [health, deleteAccount, ...factoryRawRoutes];

/** The raw routes including the OpenAPI document route. */
export function allRawRoutes(document: () => unknown): RawRoute[] {
  return [...domainRawRoutes, openApiRoute(document)];
}
