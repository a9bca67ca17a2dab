/** Object keys: a safe subset of characters, so a key is also a relative path on disk. */

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._\-\/]*$/;

/** True when `key` is usable on every store: no `..` or empty segments, no leading slash. */
export function isSafeKey(key: string): boolean {
  if (!SAFE_KEY.test(key) || key.length > 512) return false;
  return key.split("/").every((part, i, all) =>
    part !== ".." && part !== "." && (part !== "" || i === all.length - 1)
  );
}

/** SPEC 4.6: every rendered file of a push lives under this prefix. */
export function renderPrefix(userId: string, deviceId: string, pushId: string): string {
  return `render/${userId}/${deviceId}/${pushId}/`;
}
