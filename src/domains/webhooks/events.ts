/**
 * The events a webhook may subscribe to (issue 24), and what the domains that cause them see:
 * `EventSink.emit` in the transaction of the change, so an event exists exactly when the change
 * committed (the transactional outbox, like src/infra/mqtt/outbox.ts).
 */
import type { Trx } from "../../schema.ts";

export const WEBHOOK_EVENTS = [
  "push.published",
  "push.confirmed",
  "push.failed",
  "device.online",
  "device.offline",
  "device.battery_low",
  "content.ready",
  "content.failed",
  "presentation.ready",
  "plugin.data_failed",
] as const;

export type WebhookEventType = typeof WEBHOOK_EVENTS[number];

/** Records an event of a user in the caller's transaction; delivered once it commits. */
export interface EventSink {
  emit(
    trx: Trx,
    userId: string,
    type: WebhookEventType,
    data: Record<string, unknown>,
  ): Promise<void>;
  /** `emit` of one type for many changes of the user (their subscriptions read once). */
  emitMany?(
    trx: Trx,
    userId: string,
    type: WebhookEventType,
    datas: Record<string, unknown>[],
  ): Promise<void>;
}

/** No webhooks (unit tests of other domains). */
export const NO_EVENTS: EventSink = { emit: () => Promise.resolve() };

/** What a device report tells the webhooks: the device's state after it, in its transaction. */
export interface DeviceObservation {
  deviceId: string;
  userId: string;
  online: boolean;
  battery: number | null;
}
