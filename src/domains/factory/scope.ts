/**
 * The scope rule of factory principals (SPEC 5.7, CONTRACT.md FACTORY_PRINCIPALS), once as a
 * predicate and once as SQL, so that single reads and lists agree. `["*"]` is everything, `[]`
 * nothing; `batches` matches a batch id or its order number, `skus` a SKU.
 *
 * - A batch is in scope when its id or order number and its SKU are.
 * - A device is in scope when its batch is and its own SKU is too: a registration may override
 *   the batch SKU, so a batch of SKU-A can hold a device of SKU-B, and that device stays outside
 *   a principal scoped to SKU-A even though its batch is inside (issue 16).
 */
import { sql } from "kysely";
import { isUuid } from "../../infra/lib/ids.ts";
import type { Principal } from "./principals.ts";

/** The part of a principal the scope rule reads. */
export type Scope = Pick<Principal, "batches" | "skus">;

/** A batch as the scope rule sees it. */
export interface BatchRef {
  id: string;
  orderNo: string;
  sku: string;
}

/** True when the list is unrestricted (`["*"]`). */
export function unrestricted(list: readonly string[]): boolean {
  return list.includes("*");
}

/** True when the principal sees every batch and every SKU. */
export function unrestrictedScope(scope: Scope): boolean {
  return unrestricted(scope.batches) && unrestricted(scope.skus);
}

/** True when a SKU is inside the principal's SKU scope (a missing SKU never is, unless `*`). */
export function skuInScope(scope: Scope, sku: string | null | undefined): boolean {
  return unrestricted(scope.skus) || (typeof sku === "string" && scope.skus.includes(sku));
}

/** True when the batch (by id or order number, and its SKU) is inside the scope. */
export function batchInScope(scope: Scope, batch: BatchRef): boolean {
  // An id entry matches in any letter case, as the uuid column does in `batchScopeSql`.
  const id = batch.id.toLowerCase();
  const batchOk = unrestricted(scope.batches) ||
    scope.batches.some((x) => x === batch.orderNo || (isUuid(x) && x.toLowerCase() === id));
  return batchOk && skuInScope(scope, batch.sku);
}

/** True when a device of SKU `sku` in `batch` is inside the scope (both SKUs must be). */
export function deviceInScope(scope: Scope, batch: BatchRef, sku: string | null): boolean {
  return batchInScope(scope, batch) && skuInScope(scope, sku);
}

function inList(column: string, values: readonly string[]) {
  return values.length
    ? sql<boolean>`${sql.ref(column)} in (${sql.join(values)})`
    : sql<boolean>`false`;
}

function and(parts: ReturnType<typeof inList>[]) {
  return parts.length ? sql<boolean>`(${sql.join(parts, sql` and `)})` : sql<boolean>`true`;
}

function batchParts(scope: Scope) {
  const parts = [];
  if (!unrestricted(scope.batches)) {
    // A batch id column only takes UUIDs; other entries can only be order numbers.
    const ids = scope.batches.filter(isUuid);
    parts.push(sql<boolean>`(${inList("b.id", ids)} or ${inList("b.order_no", scope.batches)})`);
  }
  if (!unrestricted(scope.skus)) parts.push(inList("b.sku", scope.skus));
  return parts;
}

/** `batchInScope` as a condition on a query that names the batch table `b`. */
export function batchScopeSql(scope: Scope) {
  return and(batchParts(scope));
}

/** `deviceInScope` as a condition on a query that names the batch `b` and the device `d`. */
export function deviceScopeSql(scope: Scope) {
  const parts = batchParts(scope);
  if (!unrestricted(scope.skus)) parts.push(inList("d.sku", scope.skus));
  return and(parts);
}
