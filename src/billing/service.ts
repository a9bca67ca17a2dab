/** Billing: the subscription state of a user and the plan the rest of the service asks about. */
import type { Db } from "../schema.ts";
import type { SubscriptionSummary } from "../accounts/views.ts";

export type Plan = "free" | "pro";

export class BillingService {
  constructor(private readonly db: Db) {}

  /** The `subscription` object of `GET /auth/me` (SPEC 2.4), or null if never subscribed. */
  async summary(userId: string): Promise<SubscriptionSummary | null> {
    const row = await this.db.selectFrom("subscriptions").selectAll()
      .where("user_id", "=", userId).executeTakeFirst();
    if (!row) return null;
    return {
      status: row.status,
      plan: row.plan,
      interval: row.interval,
      currentPeriodEnd: row.current_period_end?.toISOString() ?? null,
      cancelAtPeriodEnd: row.cancel_at_period_end,
    };
  }
}
