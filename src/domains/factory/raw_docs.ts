/** Shared pieces of the factory raw routes' declarations. */
import type { RawResponseDoc } from "../../infra/http/raw.ts";

export const FACTORY_PREFIX = "/internal/factory";

/** The error responses of a factory route: 401 always, plus the route's own. */
export function FACTORY_ERRORS(extra: Record<number, string>): Record<number, RawResponseDoc> {
  return Object.fromEntries(
    Object.entries({ 401: "Missing or unknown factory token", ...extra })
      .map(([status, description]) => [status, { description }]),
  );
}

/**
 * `attachment; filename="…"` with the name reduced to safe ASCII: an order number may hold any
 * text, and a header value with a line break or a character past U+00FF is refused by `Headers`
 * (a 500 for the whole download).
 */
export function attachment(name: string): string {
  return `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, "_")}"`;
}
