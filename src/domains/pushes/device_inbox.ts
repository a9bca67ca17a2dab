/**
 * What the service does with each device message (CONTRACT.md "MQTT topics", device → service).
 * The gateway hands every `devices/{thingName}/up/...` message here; the thing name in the topic
 * is the device's identity (the broker allows a device only its own topics). Payloads are
 * untrusted (an external broker passes anything): each handler ignores what does not fit.
 * It lives with pushes because it answers push requests and confirmations as well as handing
 * state reports to devices: pushes depend on devices, never the other way round.
 */
import type { InboundMessage } from "../../infra/mqtt/gateway.ts";
import { THING_NAME } from "../../infra/mqtt/topics.ts";
import type { PushesService } from "./service.ts";
import { parseFormat } from "./views.ts";
import { parsePayload } from "../devices/report_payload.ts";
import type { DeviceMessenger, DevicesService } from "../devices/service.ts";

/** Builds the handler the gateway calls for every inbound message. */
export function deviceInbox(
  devices: DevicesService,
  pushes: PushesService,
  messenger: DeviceMessenger,
) {
  return async function onMessage({ thingName, channel, payload }: InboundMessage) {
    // No registered device has another shape; such a topic name reaches no query.
    if (!THING_NAME.test(thingName)) return;
    const body = parsePayload(payload);
    const fields = typeof body === "object" && body !== null ? body as Record<string, unknown> : {};
    switch (channel) {
      case "up/state":
        return await devices.reportState(thingName, body);
      case "up/heartbeat":
        return await devices.heartbeat(thingName, body);
      case "up/status":
        return await devices.reportStatus(thingName, body);
      case "up/confirm":
        await pushes.confirmDisplayed(thingName, fields.pushId);
        return;
      case "up/get_push":
      case "up/refresh_push": {
        const mode = channel === "up/get_push" ? "get" : "refresh";
        const reply = await pushes.forThing(thingName, mode, parseFormat(fields.format));
        // An unknown thing gets no reply: another deployment on the same broker (or another test
        // server on the shared one) owns it, and its own answer must be the only one.
        if (reply === undefined) return;
        await messenger.publish(thingName, "down/push", reply ?? { error: "no_push" });
        return;
      }
    }
  };
}
