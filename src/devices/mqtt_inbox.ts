/**
 * What the service does with each device message (CONTRACT.md "MQTT topics", device → service).
 * The gateway hands every `devices/{thingName}/up/...` message here; the thing name in the topic
 * is the device's identity (the broker allows a device only its own topics).
 */
import type { InboundMessage } from "../mqtt/gateway.ts";
import type { PushesService } from "../pushes/service.ts";
import { parseFormat } from "../pushes/views.ts";
import type { DeviceMessenger, DevicesService } from "./service.ts";

function parseJson(payload: Uint8Array): unknown {
  const text = new TextDecoder().decode(payload).trim();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // `up/status` may arrive as a bare word (a last will set by a simple client).
    return text;
  }
}

/** Builds the handler the gateway calls for every inbound message. */
export function deviceInbox(
  devices: DevicesService,
  pushes: PushesService,
  messenger: DeviceMessenger,
) {
  return async function onMessage({ thingName, channel, payload }: InboundMessage) {
    const body = parseJson(payload);
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
        await messenger.publish(thingName, "down/push", reply ?? { error: "no_push" });
        return;
      }
    }
  };
}
