/** Table types of event webhooks (migrations/0960_webhooks.sql, 1000_webhook_target_health.sql). */
import type { ColumnType, Generated } from "kysely";

export interface WebhooksTable {
  id: string;
  user_id: string;
  url: string;
  events: string[];
  secret: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  /** The lease of the one delivery in flight to this target; null or past when none is. */
  busy_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Failed attempts since the last acknowledged one, across all its deliveries. */
  consecutive_failures: Generated<number>;
  /** A slowed target is not tried before this. */
  next_attempt_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  disabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookEventsTable {
  id: string;
  user_id: string;
  type: string;
  data: unknown;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** One attempt of a delivery, as recorded. */
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  status: Generated<"pending" | "delivered" | "failed">;
  attempts: ColumnType<DeliveryAttempt[], string | undefined, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
  delivered_at: Date | null;
}

export interface WebhookSettingsTable {
  user_id: string;
  battery_low_threshold: number;
}

export interface WebhookDeviceStatesTable {
  device_id: string;
  user_id: string;
  online: boolean;
  battery_low: boolean;
  updated_at: ColumnType<Date, Date | undefined, Date | undefined>;
}

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_settings: WebhookSettingsTable;
  webhook_device_states: WebhookDeviceStatesTable;
}

declare module "../../schema.ts" {
  interface DB extends WebhookTables {}
}
