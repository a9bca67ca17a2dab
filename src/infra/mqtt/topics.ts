/** Topic names of CONTRACT.md "MQTT topics": every topic starts with `devices/{thingName}/`. */

/** Channels a device publishes on (device → service). */
export const UP_CHANNELS = [
  "up/get_push",
  "up/refresh_push",
  "up/confirm",
  "up/state",
  "up/heartbeat",
  "up/status",
] as const;
export type UpChannel = typeof UP_CHANNELS[number];

/** Channels the service publishes on (service → device). */
export const DOWN_CHANNELS = ["down/cmd", "down/push"] as const;
export type DownChannel = typeof DOWN_CHANNELS[number];

/** What the service subscribes to: every device's up channels. */
export const SERVICE_SUBSCRIPTION = "devices/+/up/#";

/**
 * The same filter as an MQTT shared subscription: the broker hands each message to one member
 * of `group`, so N API processes handle every device message once (Mosquitto supports it; the
 * embedded aedes broker does not, and runs in one process anyway).
 */
export function sharedSubscription(group: string): string {
  return `$share/${group}/${SERVICE_SUBSCRIPTION}`;
}

/** The one channel a device may retain (CONTRACT.md: `up/status` is retained, the last will). */
export const RETAINED_CHANNEL: UpChannel = "up/status";

/** Thing names usable as client ids and topic levels: no wildcards, separators or spaces. */
export const THING_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** `devices/{thingName}/{channel}`. */
export function topicOf(thingName: string, channel: string): string {
  return `devices/${thingName}/${channel}`;
}

/** Splits `devices/{thingName}/{channel}`; null for topics outside that shape. */
export function parseTopic(topic: string): { thingName: string; channel: string } | null {
  const match = topic.match(/^devices\/([^/]+)\/(.+)$/);
  return match ? { thingName: match[1], channel: match[2] } : null;
}

/**
 * The up channel a device may publish on, or null (CONTRACT.md "MQTT topics"): exactly
 * `devices/{its thingName}/up/{channel}` of the table, nothing deeper, nothing another device's.
 * A fixed set also bounds what a device can make the broker retain.
 */
export function ownUpChannel(thingName: string, topic: string): UpChannel | null {
  const prefix = `devices/${thingName}/`;
  if (!topic.startsWith(prefix)) return null;
  const channel = topic.slice(prefix.length);
  return (UP_CHANNELS as readonly string[]).includes(channel) ? channel as UpChannel : null;
}

/** True when a subscription filter stays under `devices/{thingName}/` (no `$share`, `$SYS`). */
export function isOwnFilter(thingName: string, filter: string): boolean {
  return filter.startsWith(`devices/${thingName}/`);
}
