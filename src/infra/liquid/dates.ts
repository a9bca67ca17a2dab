/**
 * The date filters of trmnl-liquid that need a locale or a clock: `l_date`, `l_word`,
 * `relative_time`, `days_ago`. Month and weekday names come from Intl (the ICU data Deno
 * ships), so `l_date: "%b", "ko"` prints `1월` without a translation table of our own.
 */

/** Rails' named formats for a time, which `l_date` accepts instead of a `%` format. */
const NAMED_FORMATS: Record<string, string> = {
  default: "%a, %d %b %Y %H:%M:%S %z",
  short: "%d %b %H:%M",
  long: "%B %d, %Y %H:%M",
};

/**
 * Replaces the name directives (`%a %A %b %B`) of a strftime format by their names in `locale`,
 * so the remaining format can go to Liquid's own `date`; an unknown locale falls back to English.
 */
export function localizeFormat(format: string, date: Date, locale: string, timeZone: string) {
  const base = NAMED_FORMATS[format] ?? format;
  const name = (option: Intl.DateTimeFormatOptions) => {
    try {
      return new Intl.DateTimeFormat(locale, { ...option, timeZone }).format(date);
    } catch {
      return new Intl.DateTimeFormat("en", { ...option, timeZone }).format(date);
    }
  };
  return base.replace(/%([aAbB])/g, (_, directive: string) => {
    const text = name(
      directive === "a"
        ? { weekday: "short" }
        : directive === "A"
        ? { weekday: "long" }
        : directive === "b"
        ? { month: "short" }
        : { month: "long" },
    );
    return text.replaceAll("%", "%%");
  });
}

const RELATIVE_WORDS: Record<string, number> = { yesterday: -1, today: 0, tomorrow: 1 };

/**
 * `l_word`: the words recipes translate most (today, tomorrow, yesterday) through Intl; any other
 * word is answered as it is (TRMNL's own translation table is not shipped here).
 */
export function localWord(word: unknown, locale: unknown): string {
  const text = String(word ?? "");
  const offset = RELATIVE_WORDS[text.toLowerCase()];
  if (offset === undefined) return text;
  try {
    return new Intl.RelativeTimeFormat(String(locale ?? "en"), { numeric: "auto" }).format(
      offset,
      "day",
    );
  } catch {
    return text;
  }
}

const INTERVALS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/** `relative_time`: "2 hours ago", "in 1 day", "just now" (under a minute), in `locale`. */
export function relativeTime(target: Date, base: Date, locale = "en"): string {
  const seconds = Math.trunc((target.getTime() - base.getTime()) / 1000);
  const found = INTERVALS.find(([, size]) => Math.abs(seconds) >= size);
  let format: Intl.RelativeTimeFormat;
  try {
    format = new Intl.RelativeTimeFormat(locale, { numeric: "always" });
  } catch {
    format = new Intl.RelativeTimeFormat("en", { numeric: "always" });
  }
  if (!found) {
    return format.resolvedOptions().locale.startsWith("en")
      ? "just now"
      : new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(0, "second");
  }
  const [unit, size] = found;
  const count = Math.floor(Math.abs(seconds) / size);
  return format.format(seconds < 0 ? -count : count, unit);
}

/** `days_ago`: the calendar date `days` before `now` in `timeZone`, as `YYYY-MM-DD`. */
export function daysAgo(days: unknown, now: Date, timeZone = "Etc/UTC"): string {
  let today: string;
  try {
    today = new Intl.DateTimeFormat("en-CA", { timeZone }).format(now);
  } catch {
    today = now.toISOString().slice(0, 10);
  }
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - (Math.trunc(Number(days)) || 0));
  return date.toISOString().slice(0, 10);
}

/** Reads what trmnl-liquid's `to_datetime` reads: a Date, a Unix time, or a date string. */
export function toDate(value: unknown): Date | undefined {
  if (value instanceof Date) return value;
  if (typeof value === "number") return new Date(value * 1000);
  const text = String(value ?? "").trim();
  if (/^\d+$/.test(text)) return new Date(Number(text) * 1000);
  // "2025-12-31 16:50:38 -0400" (Ruby's Time#to_s) is not ISO: make it so; a time without a
  // zone is UTC, as Ruby's DateTime.parse reads it, whatever the server's own zone.
  const iso = text.replace(
    /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}(?::\d{2})?)(?: ?([+-]\d{2}):?(\d{2}))?$/,
    (
      _,
      day: string,
      time: string,
      zh?: string,
      zm?: string,
    ) => `${day}T${time}${zh ? `${zh}:${zm}` : "Z"}`,
  );
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
