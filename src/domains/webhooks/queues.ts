/** The webhooks domain's background work: deliveries, and the sweep that notices silence. */
import { z } from "zod";
import { defineQueue } from "../../infra/jobs/types.ts";

/**
 * One delivery of one event to one webhook. 2 s doubling to an hour, 34 retries: about 24 h
 * of retries (CONTRACT.md "Integrations"); the handler also gives up on an event over 24 h old.
 */
export const webhookDeliveryQueue = defineQueue({
  name: "webhook-delivery",
  // How often the delivery was deferred (its target or user busy): each wait doubles.
  schema: z.object({ deliveryId: z.uuid(), deferrals: z.number().int().min(0).optional() }),
  retry: { limit: 34, delaySeconds: 2, maxDelaySeconds: 3600 },
  expireInSeconds: 60,
});

/** Each minute: devices announced online whose reports stopped become `device.offline`. */
export const webhookSweepQueue = defineQueue({
  name: "webhook-offline-sweep",
  schema: z.object({}),
  policy: "singleton",
  retry: { limit: 1, delaySeconds: 10, maxDelaySeconds: 10 },
  expireInSeconds: 120,
});
