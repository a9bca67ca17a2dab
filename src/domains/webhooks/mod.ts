/**
 * The event webhooks' face (issue 24, CONTRACT.md "Integrations"): subscriptions, their signed
 * deliveries (a queue on the jobs side) and the once-a-minute sweep that notices silent devices.
 */
import { buildWith, defineDomain, queueOf } from "../../face.ts";
import type { DeviceRow } from "../devices/service.ts";
import { isOnline } from "../devices/views.ts";
import { LinkFetcher, outboundAddresses } from "../../infra/outbound/fetch_link.ts";
import { webhookDeliveryQueue, webhookSweepQueue } from "./queues.ts";
import { webhooksRouter } from "./router.ts";
import { DELIVERY_TIMEOUT_MS, WebhooksService, webhookUserAgent } from "./service.ts";
import { OfflineSweep } from "./sweep.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { WebhookTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Event webhooks: subscriptions, events, deliveries (handler of `webhookDeliveryQueue`). */
    webhooks: WebhooksService;
    /** The once-a-minute `device.offline` sweep (handler of `webhookSweepQueue`). */
    webhookSweep: OfflineSweep;
  }
}

/** What the device events read of a device row (CONTRACT.md's online rule). */
function observation(row: DeviceRow) {
  return { deviceId: row.id, userId: row.owner_id!, online: isOnline(row), battery: row.battery };
}

export const webhooks = defineDomain({
  name: "webhooks",
  tags: {
    webhooks: "Signed event webhooks: subscriptions, their deliveries, the battery threshold",
  },
  router: webhooksRouter,
  queues: [
    queueOf(
      webhookDeliveryQueue,
      (services) => (job, attempt) => services.webhooks.deliver(job, attempt),
      // Slots are cheap (a delivery waits on the network); a user holds at most two of them
      // (TARGET_POLICY), so one user's slow targets leave the rest to everyone else.
      { concurrency: 8 },
    ),
    queueOf(webhookSweepQueue, (services) => () => services.webhookSweep.run(), {
      schedule: () => ({ cron: "* * * * *", data: {} }),
    }),
  ],
  hooks: {
    // A device's reports (a display's polls too) feed the device events, in their transaction.
    deviceReported: ({ services }) => ({
      wants: (row) => services.webhooks.watchesDevices(row.owner_id!),
      inTransaction: (trx, row) => services.webhooks.observeDevice(trx, observation(row)),
    }),
  },
  build: buildWith(["devices"], ({ db, jobs, changes, config, log, services }) => {
    const webhooks = new WebhooksService({
      db,
      jobs,
      changes,
      // Deliveries go through the link assets' SSRF guard, private and loopback targets only
      // with WEBHOOK_ALLOW_PRIVATE (local use and tests).
      allowPrivate: config.webhookAllowPrivate,
      transport: new LinkFetcher({
        timeoutMs: DELIVERY_TIMEOUT_MS,
        userAgent: webhookUserAgent(config.publicBaseUrl),
        ...outboundAddresses(config.webhookAllowPrivate),
      }),
      log,
    });
    return {
      webhooks,
      webhookSweep: new OfflineSweep({
        db,
        webhooks,
        lockDevice: async (trx, deviceId) => {
          const row = await services.devices.lock(trx, deviceId);
          return row && { ...observation(row), userId: row.owner_id };
        },
      }),
    };
  }),
});
