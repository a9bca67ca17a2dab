/**
 * How the webhook inbox combines a post with the stored merge variables (CONTRACT.md, TRMNL's
 * `merge_strategy`): `replace` (the default) stores the post; `deep_merge` merges objects key by
 * key, recursively (a post's non-object value, arrays included, replaces the stored one);
 * `stream` appends each top-level array of the post to the stored array of that key, keeping the
 * newest `streamLimit` items, and sets every other key as posted.
 */
export const MERGE_STRATEGIES = ["replace", "deep_merge", "stream"] as const;
export type MergeStrategy = typeof MERGE_STRATEGIES[number];

type Data = Record<string, unknown>;

/** Sets an own data property, whatever the key (`__proto__` included: it stays data). */
function put(out: Data, key: string, value: unknown) {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

function isObject(value: unknown): value is Data {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `patch` merged into `base` recursively; neither is changed. */
export function deepMerge(base: Data, patch: Data): Data {
  const out: Data = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    // A posted key named like Object's own members is data, not a path into the prototype.
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    put(out, key, isObject(current) && isObject(value) ? deepMerge(current, value) : value);
  }
  return out;
}

/** `patch`'s arrays appended to `base`'s, each cut to its newest `limit` items. */
export function streamMerge(base: Data, patch: Data, limit?: number): Data {
  const out: Data = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (!Array.isArray(value)) {
      put(out, key, value);
      continue;
    }
    const current = Object.hasOwn(out, key) && Array.isArray(out[key]) ? out[key] : [];
    const joined = [...current as unknown[], ...value];
    put(out, key, limit === undefined ? joined : joined.slice(Math.max(0, joined.length - limit)));
  }
  return out;
}

/** The merge variables after a post. */
export function mergeVariables(
  stored: Data,
  posted: Data,
  strategy: MergeStrategy = "replace",
  streamLimit?: number,
): Data {
  switch (strategy) {
    case "replace":
      return posted;
    case "deep_merge":
      return deepMerge(stored, posted);
    case "stream":
      return streamMerge(stored, posted, streamLimit);
  }
}
