/**
 * The factory's devices, over MQTT (CONTRACT.md topics): commands published and acknowledged by
 * the broker, notices through the outbox once the transaction commits. A rendered push is not
 * announced: the device asks for it (`up/get_push`), as before.
 */
import type { DeviceMessenger, DeviceOutbox, DeviceTransport } from "./transport.ts";

export function mqttTransport(messenger: DeviceMessenger, outbox: DeviceOutbox): DeviceTransport {
  return {
    name: "mqtt",
    publish: (device, channel, body) => messenger.publish(device.thing_name, channel, body),
    async notify(trx, device, notice) {
      if (notice.kind === "push_ready") return;
      await outbox.enqueue(trx, device.thing_name, "down/cmd", notice);
    },
  };
}
