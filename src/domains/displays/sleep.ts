/**
 * A display's nightly sleep window (issue 23: `refresh_rate` is stretched to the window's end):
 * local start and end times in the owner's time zone; a window may cross midnight.
 */
import { z } from "zod";

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Whether the runtime knows an IANA time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const sleepWindowSchema = z.object({
  start: z.string().regex(HHMM, "must be HH:MM").meta({ description: "Local time, `HH:MM`" }),
  end: z.string().regex(HHMM, "must be HH:MM").meta({ description: "Local time, `HH:MM`" }),
  timeZone: z.string().max(64).refine(isTimeZone, "must be an IANA time zone").meta({
    description: "IANA time zone, e.g. `Europe/Berlin`",
  }),
}).meta({ id: "SleepWindow" });

export type SleepWindow = z.infer<typeof sleepWindowSchema>;

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return h * 60 + m;
}

/** Seconds from `now` to the window's end when `now` is inside it, else null. */
export function secondsToWake(window: SleepWindow, now = new Date()): number | null {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: window.timeZone,
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const nowSeconds = get("hour") * 3600 + get("minute") * 60 + get("second");
  const start = minutes(window.start) * 60;
  const end = minutes(window.end) * 60;
  if (start === end) return null;
  const inside = start < end
    ? nowSeconds >= start && nowSeconds < end
    : nowSeconds >= start || nowSeconds < end;
  if (!inside) return null;
  return (end - nowSeconds + 86_400) % 86_400;
}
