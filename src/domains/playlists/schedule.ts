/**
 * Which item of a playlist is due (CONTRACT.md): the items in order, each inside its weekdays
 * and `from`/`until` window in the playlist's time zone; the ones outside are skipped.
 */
import type { PlaylistItem } from "./inputs.ts";
import { zoneFormat } from "../../infra/lib/zone_format.ts";

/** The weekday and the 24-hour clock: what a schedule's `days`/`from`/`until` are read in. */
const LOCAL_TIME: Intl.DateTimeFormatOptions = {
  weekday: "short",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
};

/** The weekday (0 = Sunday) and minute of the day of `now` in `timeZone`. */
export function localTime(timeZone: string, now: Date): { day: number; minute: number } {
  const format = zoneFormat("schedule", timeZone, LOCAL_TIME);
  const parts = format.formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(get("weekday"));
  return { day, minute: Number(get("hour")) * 60 + Number(get("minute")) };
}

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return h * 60 + m;
}

/** Whether an item shows at `now` in the playlist's zone. */
export function isDue(item: PlaylistItem, timeZone: string, now: Date): boolean {
  const local = localTime(timeZone, now);
  if (item.days && !item.days.includes(local.day)) return false;
  const from = item.from === undefined ? 0 : minutes(item.from);
  const until = item.until === undefined ? 24 * 60 : minutes(item.until);
  if (from === until) return true;
  return from < until
    ? local.minute >= from && local.minute < until
    : local.minute >= from || local.minute < until;
}

/** The first due item after `current` (wrapping round, `current` itself last), or -1. */
export function nextDue(
  items: readonly PlaylistItem[],
  timeZone: string,
  current: number,
  now: Date,
): number {
  for (let step = 1; step <= items.length; step++) {
    const index = (current + step + items.length) % items.length;
    if (isDue(items[index], timeZone, now)) return index;
  }
  return -1;
}
