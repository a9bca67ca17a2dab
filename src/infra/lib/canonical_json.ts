/**
 * Canonical JSON: object keys sorted by code point, no whitespace, `undefined` left out, so equal
 * values give equal text. Used for manifest signatures (CONTRACT.md "NFC bind URI") and for the
 * request fingerprints idempotency keys remember.
 */
import { sha256Hex } from "./crypto.ts";

/** The canonical text of a JSON value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** The fingerprint a request is remembered by (SHA-256 of its canonical JSON, hex). */
export function fingerprint(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
