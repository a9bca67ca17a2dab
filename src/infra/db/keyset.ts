/**
 * Keyset pages, newest first, anchored on `(created_at, id)` (src/infra/lib/cursor.ts): the anchor's
 * time goes to PostgreSQL as text and is cast there. Typed `timestamptz`, postgres.js would send
 * the parameter through a JS Date and drop its microseconds, and the next page would skip the
 * rows created in the anchor's millisecond.
 */
import { sql } from "kysely";
import type { Anchor } from "../lib/cursor.ts";

/** `created_at` as exact UTC text with microseconds, for cursors. */
export const createdAtText = sql<
  string
>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows older than the anchor: `(created_at, id) < (anchor)`, exact to the microsecond. */
export function olderThan(anchor: Anchor) {
  return sql<
    boolean
  >`(created_at, id) < (${anchor.createdAt}::text::timestamptz, ${anchor.id}::uuid)`;
}
