/**
 * Liquid (liquidjs) as push templates use it: the language TRMNL plugin authors already write.
 * Every output is HTML-escaped, so a note's `<b>` or `&` is text, never markup (STACK.md:
 * Templates); an undefined variable is an error rather than an empty string, except in `if`.
 */
import { Liquid, type Template } from "liquidjs";

const DAY = 86_400_000;

/** Midnight UTC of the calendar day a date string (or Date) falls on; NaN when unreadable. */
function utcDay(value: unknown): number {
  const date = value instanceof Date ? value : new Date(String(value));
  const time = date.getTime();
  return Number.isNaN(time) ? Number.NaN : Math.floor(time / DAY) * DAY;
}

/** Calendar days from `now` to `date` (UTC), negative once past; null for an unreadable date. */
export function daysUntil(date: unknown, now: unknown): number | null {
  const days = (utcDay(date) - utcDay(now)) / DAY;
  return Number.isFinite(days) ? days : null;
}

function createEngine(): Liquid {
  const engine = new Liquid({
    strictVariables: true,
    lenientIf: true,
    strictFilters: true,
    outputEscape: "escape",
    ownPropertyOnly: true,
    // Dates are calendar dates: "2025-03-14" is that day everywhere, not the day before in UTC-5.
    timezoneOffset: 0,
    // Templates are ours, but their loops run over caller data: bound the work of one render.
    renderLimit: 2_000,
    memoryLimit: 16_000_000,
  });
  engine.registerFilter("days_until", daysUntil);
  return engine;
}

let engine: Liquid | undefined;
/** Parsed markup, keyed by the markup itself: a template is parsed once per thread. */
const parsed = new Map<string, Template[]>();

/**
 * Renders a template's markup with `variables`; `now` (an ISO timestamp) is the global `now`
 * that date filters count from, passed in so a render is reproducible.
 */
export function renderLiquid(
  markup: string,
  variables: Record<string, unknown>,
  now: string,
): string {
  engine ??= createEngine();
  let template = parsed.get(markup);
  if (!template) {
    template = engine.parse(markup);
    parsed.set(markup, template);
  }
  return engine.renderSync(template, variables, { globals: { now } });
}
