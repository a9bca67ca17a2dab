/**
 * Factory principals (SPEC 5.7, CONTRACT.md FACTORY_PRINCIPALS): the bearer lookup in constant
 * time and the public view. What a principal may do is decided in `access.ts` and `scope.ts`.
 */
import type { Config } from "../../config.ts";
import { timingSafeEqualString } from "../../infra/lib/crypto.ts";

export type Principal = Config["factoryPrincipals"][number];
export type Role = Principal["role"];

/**
 * The principal whose token equals `bearer`, or null. Every configured token is compared, with
 * no early exit, so the time taken tells nothing about which token (if any) was close.
 */
export function findPrincipal(principals: readonly Principal[], bearer: string): Principal | null {
  let found: Principal | null = null;
  for (const p of principals) {
    if (timingSafeEqualString(p.token, bearer) && !found) found = p;
  }
  return found;
}

/** The public view of a principal (whoami): everything but the token. */
export function principalView(p: Principal) {
  return {
    id: p.id,
    name: p.name,
    role: p.role,
    stationId: p.stationId,
    factoryId: p.factoryId,
    batches: p.batches,
    skus: p.skus,
  };
}
