/**
 * The event webhooks' face (issue 24, CONTRACT.md "Integrations"): subscriptions, their signed
 * deliveries (a queue on the jobs side) and the once-a-minute sweep that notices silent devices.
 */
import { defineDomain, queueOf } from "../../domain.ts";
import { webhookDeliveryQueue, webhookSweepQueue } from "./queues.ts";
import { webhooksRouter } from "./router.ts";
import { type WebhooksDeps, WebhooksService } from "./service.ts";

export const webhooks = defineDomain({
  name: "webhooks",
  router: webhooksRouter,
  queues: [
    queueOf(
      webhookDeliveryQueue,
      (services) => (job, attempt) => services.webhooks.deliver(job, attempt),
      { concurrency: 4 },
    ),
    queueOf(webhookSweepQueue, (services) => () => services.webhookSweep.run(), {
      schedule: () => ({ cron: "* * * * *", data: {} }),
    }),
  ],
  build: (deps: WebhooksDeps) => new WebhooksService(deps),
});
