/** SQL of the billing domain. Lockers take a transaction. */
import { sql, type Updateable } from "kysely";
import type { Db, Trx } from "../../schema.ts";
import type { SubscriptionsTable } from "./tables.ts";

/** The subscription row of a user, or undefined if they never reached billing. */
export function findSubscription(db: Db, userId: string) {
  return db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId)
    .executeTakeFirst();
}

/** The user whose stored payment customer id this is. */
export async function findUserIdByCustomer(db: Db, customerId: string) {
  const row = await db.selectFrom("subscriptions").select("user_id")
    .where("payment_customer_id", "=", customerId).executeTakeFirst();
  return row?.user_id;
}

/**
 * Keeps the first customer id stored for a user (two racing checkouts may each create one at
 * the provider; both then use the winner) and returns the stored one.
 */
export async function keepCustomerId(db: Db, userId: string, customerId: string) {
  const row = await db.insertInto("subscriptions")
    .values({ user_id: userId, payment_customer_id: customerId })
    .onConflict((oc) =>
      oc.column("user_id").doUpdateSet({
        payment_customer_id:
          sql`coalesce(subscriptions.payment_customer_id, excluded.payment_customer_id)`,
      })
    )
    .returning("payment_customer_id").executeTakeFirstOrThrow();
  return row.payment_customer_id ?? customerId;
}

/**
 * Records an event id; undefined when it was already recorded. A concurrent duplicate blocks on
 * the uncommitted row and then sees the conflict, so of two deliveries exactly one proceeds.
 */
export function recordEvent(trx: Trx, id: string, type: string) {
  return trx.insertInto("payment_events").values({ id, type })
    .onConflict((oc) => oc.column("id").doNothing())
    .returning("id").executeTakeFirst();
}

/** Whether an event id was processed (tests and operators). */
export async function eventProcessed(db: Db, id: string) {
  const row = await db.selectFrom("payment_events").select("id").where("id", "=", id)
    .executeTakeFirst();
  return row !== undefined;
}

/** Creates the user's row if missing and locks it for the rest of the transaction. */
export async function lockSubscription(trx: Trx, userId: string) {
  await trx.insertInto("subscriptions").values({ user_id: userId })
    .onConflict((oc) => oc.column("user_id").doNothing()).execute();
  return await trx.selectFrom("subscriptions").selectAll().where("user_id", "=", userId)
    .forUpdate().executeTakeFirstOrThrow();
}

/** Applies changes to a user's subscription row. */
export function updateSubscription(
  db: Db,
  userId: string,
  changes: Updateable<SubscriptionsTable>,
) {
  return db.updateTable("subscriptions").set({ ...changes, updated_at: new Date() })
    .where("user_id", "=", userId).execute();
}

/** Sets a plan locally, without the provider (`deno task admin set-plan`). */
export async function setPlan(db: Db, userId: string, plan: "pro" | "free") {
  const values = plan === "pro"
    ? { status: "active", plan: "pro", cancel_at_period_end: false }
    : { status: "canceled", plan: "free", cancel_at_period_end: false };
  await db.insertInto("subscriptions").values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ ...values, updated_at: new Date() }))
    .execute();
}
