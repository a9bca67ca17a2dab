/**
 * Shared zod pieces of response bodies: how a timestamp is written (RFC 3339, documented
 * `format: date-time`). Views write `Date.toISOString()`; tRPC checks the output against it.
 */
import { z } from "zod";

/** An instant, as `Date.toISOString()` writes it. */
export const timestamp = z.iso.datetime({ offset: true });
