/**
 * Factory principals (SPEC 5.7, CONTRACT.md FACTORY_PRINCIPALS): bearer lookup in constant time
 * and the scope rules. Scope lists: `["*"]` is everything, `[]` is nothing; `batches` matches a
 * batch id or its order number, `skus` the SKU of a batch or device.
 */
import type { Config } from "../config.ts";
import { timingSafeEqualString } from "../lib/crypto.ts";

export type Principal = Config["factoryPrincipals"][number];
export type Role = Principal["role"];

/** Roles allowed to write (SPEC 4.8: "write" means operator or supervisor). */
export const WRITERS: readonly Role[] = ["operator", "supervisor"];
export const SUPERVISORS: readonly Role[] = ["supervisor"];
export const ANY_ROLE: readonly Role[] = ["operator", "supervisor", "auditor"];

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

/** True when the list is unrestricted (`["*"]`). */
export function unrestricted(list: readonly string[]): boolean {
  return list.includes("*");
}

/** True when a batch (by id or order number) and a SKU are both inside the principal's scope. */
export function inScope(
  principal: Pick<Principal, "batches" | "skus">,
  batch: { id: string; orderNo: string },
  sku: string | null,
): boolean {
  const batchOk = unrestricted(principal.batches) ||
    principal.batches.includes(batch.id) || principal.batches.includes(batch.orderNo);
  const skuOk = unrestricted(principal.skus) || (sku !== null && principal.skus.includes(sku));
  return batchOk && skuOk;
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
