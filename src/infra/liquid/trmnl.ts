/**
 * Liquid as TRMNL speaks it, for plugin markup (recipes). Unlike push templates
 * (`infra/render/templates/liquid.ts`) nothing is escaped: TRMNL renders with Shopify Liquid,
 * which escapes nothing, and recipes print HTML held in variables (`qr_code`,
 * `markdown_to_html`, a webhook's `html`). An unknown variable is empty and an unknown filter
 * leaves the value as it is, as on TRMNL. The page this HTML lands in is isolated and reaches no
 * network (CONTRACT, plugins). Every render has its own engine: its `{% template %}` partials
 * are its own, and no markup can read a file.
 */
import { LiquidError } from "liquidjs";
import { createTrmnlEngine, DEFAULT_DEADLINE_MS } from "./engine.ts";
import type { FilterClock } from "./filters.ts";

export { trmnlContext } from "./context.ts";
export type { TrmnlContextInput, TrmnlDevice, TrmnlPlugin, TrmnlUser } from "./context.ts";
export { compatibility, unknownFilters } from "./compatibility.ts";
export { createTrmnlEngine, DEFAULT_DEADLINE_MS, MEMORY_LIMIT, PARSE_LIMIT } from "./engine.ts";

/** Markup that does not parse or does not render: the message names the line and column. */
export class LiquidMarkupError extends Error {
  override name = "LiquidMarkupError";
}

/** Options of one render. */
export interface RenderOptions {
  /** Wall-clock budget of the render in ms (liquidjs `renderLimit`). */
  deadlineMs?: number;
}

/** The clock and locale a context built by `trmnlContext` carries (UTC, English otherwise). */
function clockOf(context: Record<string, unknown>): FilterClock {
  const trmnl = (context.trmnl ?? {}) as {
    user?: { time_zone_iana?: string; locale?: string };
    system?: { timestamp_utc?: number };
  };
  const seconds = trmnl.system?.timestamp_utc;
  return {
    now: typeof seconds === "number" ? new Date(seconds * 1000) : new Date(),
    timeZone: validZone(trmnl.user?.time_zone_iana) ?? "UTC",
    locale: trmnl.user?.locale ?? "en",
  };
}

function validZone(zone: string | undefined): string | undefined {
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

/**
 * Renders TRMNL markup with `context` (see `trmnlContext`) to HTML. Throws `LiquidMarkupError`
 * for markup that does not parse, fails while rendering, or runs over the time or memory budget.
 */
export function render(
  markup: string,
  context: Record<string, unknown>,
  options: RenderOptions = {},
): string {
  const { engine } = createTrmnlEngine(clockOf(context), options.deadlineMs ?? DEFAULT_DEADLINE_MS);
  try {
    return engine.parseAndRenderSync(markup, context);
  } catch (error) {
    throw new LiquidMarkupError(describe(error));
  }
}

/** liquidjs's message, which already ends in "line:N, col:M", without its source excerpt. */
function describe(error: unknown): string {
  if (error instanceof LiquidError) {
    const first = error.message.split("\n")[0];
    return `Liquid: ${first}`;
  }
  return `Liquid: ${error instanceof Error ? error.message : String(error)}`;
}
