/** Row-to-API mapping of webhooks (CONTRACT.md "Integrations"). */
import { z } from "zod";
import type { Selectable } from "kysely";
import { timestamp } from "../../infra/lib/wire.ts";
import { WEBHOOK_EVENTS } from "./events.ts";
import type { DeliveryAttempt, WebhooksTable } from "./tables.ts";

export const webhookSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  createdAt: timestamp,
  state: z.enum(["active", "slowed", "disabled"]).meta({
    description:
      "active; slowed after 3 failed attempts in a row (tries spaced out); disabled after 20 " +
      "(no deliveries until POST /api/webhooks/{id}/enable)",
  }),
  consecutiveFailures: z.number().int().meta({
    description: "Failed attempts in a row, across the webhook's deliveries",
  }),
  disabledAt: timestamp.nullable(),
  disabledReason: z.string().nullable().meta({ description: "Why it was disabled" }),
}).meta({ id: "Webhook" });

export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().meta({ description: "The signing secret, shown only here" }),
}).meta({ id: "CreatedWebhook" });

const attemptSchema = z.object({
  attempt: z.number().int(),
  at: timestamp,
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
}).meta({ id: "WebhookDeliveryAttempt" });

export const deliverySchema = z.object({
  id: z.uuid(),
  eventId: z.uuid(),
  type: z.enum(WEBHOOK_EVENTS),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.array(attemptSchema),
  createdAt: timestamp,
  deliveredAt: timestamp.nullable(),
}).meta({ id: "WebhookDelivery" });

export const deliveryPageSchema = z.object({
  items: z.array(deliverySchema),
  nextCursor: z.string().optional(),
  hasMore: z.boolean(),
}).meta({ id: "WebhookDeliveryPage" });

export const webhookSettingsSchema = z.object({
  batteryLowThreshold: z.number().int(),
}).meta({ id: "WebhookSettings" });

export function toWebhook(row: Selectable<WebhooksTable>): z.infer<typeof webhookSchema> {
  return {
    id: row.id,
    url: row.url,
    events: row.events as z.infer<typeof webhookSchema>["events"],
    createdAt: row.created_at.toISOString(),
    state: row.disabled_at
      ? "disabled"
      : row.next_attempt_at && row.next_attempt_at.getTime() > Date.now()
      ? "slowed"
      : "active",
    consecutiveFailures: row.consecutive_failures,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    disabledReason: row.disabled_reason,
  };
}

export function toDelivery(row: {
  id: string;
  event_id: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: DeliveryAttempt[];
  created_at: Date;
  delivered_at: Date | null;
}): z.infer<typeof deliverySchema> {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type as z.infer<typeof deliverySchema>["type"],
    status: row.status,
    attempts: row.attempts,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}
