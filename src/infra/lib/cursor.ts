/**
 * The opaque cursor of newest-first pages (push history SPEC 4.5, raw items, analyze runs): a
 * keyset anchor on (createdAt, id). `createdAt` keeps PostgreSQL's microseconds as text, so the anchor is exact (a JS Date
 * would round to milliseconds and skip or repeat rows created in the same millisecond).
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import { badRequest } from "../../errors.ts";
import { isUuid } from "./ids.ts";

export interface Anchor {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Encodes an anchor as a cursor string. */
export function encodeCursor(anchor: Anchor): string {
  return encodeBase64urlNoPadding(new TextEncoder().encode(`${anchor.createdAt}|${anchor.id}`));
}

/** Decodes a cursor; null when it is not one this service issued. */
export function decodeCursor(cursor: string): Anchor | null {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(
      decodeBase64urlIgnorePadding(cursor),
    );
    const [createdAt, id, ...rest] = text.split("|");
    if (rest.length || !TIMESTAMP.test(createdAt ?? "") || !isUuid(id ?? "")) return null;
    if (Number.isNaN(Date.parse(createdAt))) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}

/** The anchor of a `cursor` query parameter: undefined for the first page, 400 when malformed. */
export function anchorOf(cursor: string | undefined): Anchor | undefined {
  if (cursor === undefined) return undefined;
  const anchor = decodeCursor(cursor);
  if (!anchor) throw badRequest("cursor is malformed");
  return anchor;
}

/**
 * One page of a keyset query that fetched `limit + 1` rows: the first `limit`, mapped, and
 * `nextCursor` (omitted on the last page, SPEC 4.5) anchored on the last row returned.
 */
export async function keysetPage<R extends { created_at_text: string; id: string }, T>(
  rows: R[],
  limit: number,
  view: (page: R[]) => T[] | Promise<T[]>,
): Promise<{ items: T[]; nextCursor?: string; hasMore: boolean }> {
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: await view(page),
    ...(hasMore && last
      ? { nextCursor: encodeCursor({ createdAt: last.created_at_text, id: last.id }) }
      : {}),
    hasMore,
  };
}
