/**
 * A TRMNL device on TRMNL's hosted service (transport `trmnl_webhook`): nothing here is ever
 * asked, so a push that is ready or chosen is posted to its private plugin's webhook (a queued
 * post, under the provider's limit); its health shows the webhook's host and its last failure.
 * It takes no commands (`cmd` is 409).
 */
import type { DeviceTransport } from "../devices/transport.ts";
import type { ExternalDisplays } from "./external.ts";

export function trmnlWebhookTransport(external: ExternalDisplays): DeviceTransport {
  return {
    name: "trmnl_webhook",
    async notify(trx, device, notice) {
      if (notice.kind !== "unbound") await external.schedulePost(trx, device.id);
    },
    health: (device) => external.health(device),
  };
}
