/**
 * The typed database: the union of every domain's tables. Nothing is listed here: each domain's
 * `tables.ts` adds its own to `DB` (declaration merging), so a new domain's tables need no line
 * outside its folder. Repositories take `Db` (the pool or a transaction) or `Trx`.
 *
 *     declare module "../../schema.ts" {
 *       interface DB extends BillingTables {}
 *     }
 */
import type { Kysely, Transaction } from "kysely";

// deno-lint-ignore no-empty-interface -- every domain's tables.ts extends it
export interface DB {}

/** Any executor: the pool or an open transaction. */
export type Db = Kysely<DB>;
/** An open transaction; functions that lock rows take only this. */
export type Trx = Transaction<DB>;
