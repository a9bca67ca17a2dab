/** Table types of event webhooks (migrations/0960_webhooks.sql). */
import type { ColumnType, Generated } from "kysely";

export interface WebhooksTable {
  id: string;
  user_id: string;
  url: string;
  events: string[];
  secret: string;
  created_at: ColumnType<Date, Date | undefined, never>;
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
