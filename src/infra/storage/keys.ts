/** Object keys: a safe subset of characters, so a key is also a relative path on disk. */

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._\-\/]*$/;

/** Longest key, and longest segment (file names on disk stop at 255 bytes). */
const MAX_KEY = 512;
const MAX_SEGMENT = 200;

/**
 * True when `key` names an object on every store: ASCII letters, digits and `._-/` only (no
 * backslash, NUL, `%` or space), no leading slash, no `.`, `..` or empty segment, no trailing
 * slash, at most 512 characters and 200 per segment.
 */
export function isSafeKey(key: string): boolean {
  if (!SAFE_KEY.test(key) || key.length > MAX_KEY) return false;
  return key.split("/").every((part) =>
    part !== ".." && part !== "." && part !== "" && part.length <= MAX_SEGMENT
  );
}
