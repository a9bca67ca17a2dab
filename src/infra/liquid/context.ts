/**
 * The variables a TRMNL recipe's markup sees: its merge variables at the top level and the
 * `trmnl` object (user, device, system, plugin settings) shaped as TRMNL's hosted service and
 * trmnlp give it.
 */
import { zoneFormat } from "../lib/zone_format.ts";

/** The owner of the display, as `trmnl.user` shows them. */
export interface TrmnlUser {
  name: string;
  locale?: string;
  /** IANA zone, e.g. `Europe/Berlin`. */
  timeZone?: string;
  /** Seconds east of UTC; computed from `timeZone` at `now` when absent. */
  utcOffset?: number;
}

/** The display the render is for, as `trmnl.device` shows it. */
export interface TrmnlDevice {
  friendlyId?: string;
  percentCharged?: number;
  wifiStrength?: number;
  width: number;
  height: number;
}

/** The plugin instance, as `trmnl.plugin_settings` shows it. */
export interface TrmnlPlugin {
  instanceName?: string;
  strategy?: string;
}

/** Everything `trmnlContext` builds the variables from. */
export interface TrmnlContextInput {
  mergeVariables: Record<string, unknown>;
  user: TrmnlUser;
  device: TrmnlDevice;
  customFieldsValues?: Record<string, unknown>;
  plugin?: TrmnlPlugin;
  now: Date;
}

/** Every field of a date and time, to read a zone's offset from. */
const OFFSET_PARTS: Intl.DateTimeFormatOptions = {
  hourCycle: "h23",
  year: "numeric",
  month: "numeric",
  day: "numeric",
  hour: "numeric",
  minute: "numeric",
  second: "numeric",
};

/** Seconds east of UTC of `timeZone` at `now` (0 for an unknown zone). */
export function utcOffsetSeconds(timeZone: string, now: Date): number {
  try {
    const parts = zoneFormat("offset", timeZone, OFFSET_PARTS).formatToParts(now);
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    const local = Date.UTC(
      get("year"),
      get("month") - 1,
      get("day"),
      get("hour"),
      get("minute"),
      get("second"),
    );
    return Math.round((local - Math.floor(now.getTime() / 1000) * 1000) / 1000);
  } catch {
    return 0;
  }
}

/**
 * The render's variables. `trmnl` is laid last, so data a webhook or a poll brings cannot
 * pose as the user or the device.
 */
export function trmnlContext(input: TrmnlContextInput): Record<string, unknown> {
  const { user, device, plugin = {}, now } = input;
  const [firstName = "", ...rest] = user.name.trim().split(/\s+/);
  const timeZone = user.timeZone ?? "UTC";
  return {
    ...input.mergeVariables,
    trmnl: {
      user: {
        name: user.name,
        first_name: firstName,
        last_name: rest.join(" "),
        locale: user.locale ?? "en",
        time_zone_iana: timeZone,
        utc_offset: user.utcOffset ?? utcOffsetSeconds(timeZone, now),
      },
      device: {
        friendly_id: device.friendlyId ?? "",
        percent_charged: device.percentCharged ?? 100,
        wifi_strength: device.wifiStrength ?? 100,
        width: device.width,
        height: device.height,
      },
      system: { timestamp_utc: Math.floor(now.getTime() / 1000) },
      plugin_settings: {
        instance_name: plugin.instanceName ?? "",
        strategy: plugin.strategy ?? "",
        custom_fields_values: input.customFieldsValues ?? {},
      },
    },
  };
}
