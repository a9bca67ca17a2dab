/**
 * The filters trmnl-liquid adds to Shopify Liquid, registered on a liquidjs engine. Where
 * liquidjs already has a filter of the same name and meaning (`where_exp`, `sample`, `json`) its
 * own is kept; `group_by` is replaced, since TRMNL's answers a hash of key → items.
 */
import type { Liquid } from "liquidjs";
import { daysAgo, localizeFormat, localWord, relativeTime, toDate } from "./dates.ts";
import { markdownToHtml, qrCode } from "./markdown.ts";
import { numberToCurrency, numberWithDelimiter, ordinal, pluralize, toInteger } from "./numbers.ts";

/** What the clock-dependent filters read: the render's "now" and the user's zone and locale. */
export interface FilterClock {
  now: Date;
  timeZone: string;
  locale: string;
}

type Row = Record<string, unknown>;

/** liquidjs hands a keyword argument (`plural: "x"`) as a `[name, value]` pair. */
function keyword(args: unknown[], name: string): unknown {
  const pair = args.find((arg) => Array.isArray(arg) && arg.length === 2 && arg[0] === name);
  return (pair as [string, unknown] | undefined)?.[1];
}

function rows(collection: unknown): Row[] {
  return Array.isArray(collection) ? collection as Row[] : [];
}

/** Registers TRMNL's filters on `engine`, the clock-dependent ones reading `clock`. */
export function registerTrmnlFilters(engine: Liquid, clock: FilterClock): void {
  const date = engine.filters["date"] as (this: unknown, ...args: unknown[]) => unknown;
  engine.registerFilter("number_with_delimiter", numberWithDelimiter);
  engine.registerFilter("number_to_currency", numberToCurrency);
  engine.registerFilter("pluralize", (singular: unknown, count: unknown, ...args: unknown[]) => {
    const plural = keyword(args, "plural");
    return pluralize(singular, count, plural === undefined ? undefined : String(plural));
  });
  engine.registerFilter("map_to_i", (collection: unknown) => rows(collection).map(toInteger));
  engine.registerFilter("parse_json", (text: unknown) => JSON.parse(String(text)));
  engine.registerFilter("group_by", (collection: unknown, key: unknown) => {
    const groups: Record<string, Row[]> = {};
    for (const row of rows(collection)) {
      const value = String(row?.[String(key)] ?? "");
      (groups[value] ??= []).push(row);
    }
    return groups;
  });
  engine.registerFilter(
    "find_by",
    (collection: unknown, key: unknown, value: unknown, fallback: unknown = null) =>
      rows(collection).find((row) => row?.[String(key)] === value) ?? fallback,
  );
  engine.registerFilter("append_random", (value: unknown) => {
    const bytes = crypto.getRandomValues(new Uint8Array(2));
    return `${value ?? ""}${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  });
  engine.registerFilter("markdown_to_html", markdownToHtml);
  engine.registerFilter("qr_code", qrCode);
  engine.registerFilter("l_word", localWord);
  engine.registerFilter(
    "days_ago",
    (days: unknown, zone?: unknown) =>
      daysAgo(days, clock.now, zone === undefined ? "Etc/UTC" : String(zone)),
  );
  engine.registerFilter("relative_time", (target: unknown, from?: unknown, locale?: unknown) => {
    const when = toDate(target);
    if (!when) return target;
    const base = from === undefined || from === null ? clock.now : toDate(from) ?? clock.now;
    return relativeTime(when, base, locale === undefined ? "en" : String(locale));
  });
  engine.registerFilter("l_date", function (this: unknown, value: unknown, ...args: unknown[]) {
    const when = toDate(value);
    if (!when) return value;
    const locale = args[1] === undefined ? "en" : String(args[1]);
    const format = localizeFormat(String(args[0] ?? "default"), when, locale, clock.timeZone);
    return date.call(this, when, format);
  });
  engine.registerFilter("ordinalize", function (this: unknown, value: unknown, format: unknown) {
    const when = toDate(value);
    if (!when) return value;
    const day = Number(
      new Intl.DateTimeFormat("en", { day: "numeric", timeZone: clock.timeZone }).format(when),
    );
    const text = String(format ?? "").replaceAll("<<ordinal_day>>", ordinal(day));
    return date.call(this, when, text);
  });
}
