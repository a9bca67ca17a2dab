/**
 * The opaque cursor of push history pages (SPEC 4.5): a keyset anchor on (createdAt, id), newest
 * first. `createdAt` keeps PostgreSQL's microseconds as text, so the anchor is exact (a JS Date
 * would round to milliseconds and skip or repeat rows created in the same millisecond).
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import { isUuid } from "../lib/ids.ts";

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
