/** Table types of billing (migrations/0001_accounts.sql `subscriptions`, 0300 `payment_events`). */
import type { ColumnType, Generated } from "kysely";

export interface SubscriptionsTable {
  user_id: string;
  status: Generated<string>;
  plan: string | null;
  interval: string | null;
  current_period_start: Date | null;
  current_period_end: Date | null;
  cancel_at_period_end: Generated<boolean>;
  payment_customer_id: string | null;
  payment_subscription_id: string | null;
  provider_updated_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PaymentEventsTable {
  id: string;
  type: string;
  processed_at: ColumnType<Date, Date | undefined, never>;
}

export interface BillingTables {
  subscriptions: SubscriptionsTable;
  payment_events: PaymentEventsTable;
}

declare module "../../schema.ts" {
  interface DB extends BillingTables {}
}
