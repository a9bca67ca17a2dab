/**
 * Device report payloads (CONTRACT.md "MQTT topics", device → service) as the service reads
 * them: any bytes may arrive (invalid JSON, binary, wrong types), and none may fail a handler
 * with a database error. Limits here keep what `up/state` stores within what PostgreSQL's jsonb
 * accepts and what an owner's `GET .../state` should return.
 */

/** Nesting allowed in a stored state object (a device reports a flat-ish status). */
export const MAX_STATE_DEPTH = 32;

/** The payload as JSON, or as its trimmed text when it is not JSON; undefined when empty. */
export function parsePayload(payload: Uint8Array): unknown {
  // Invalid UTF-8 becomes U+FFFD rather than an exception.
  const text = new TextDecoder().decode(payload).trim();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // `up/status` may arrive as a bare word (a last will set by a simple client).
    return text;
  }
}

/** A string PostgreSQL can store in text and jsonb: no NUL, no lone UTF-16 surrogate. */
export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}

/**
 * True when `value` can be stored as jsonb as-is: nesting up to MAX_STATE_DEPTH and only
 * storable strings (keys included). Walks iteratively, so deep input cannot exhaust the stack.
 */
export function isStorableJson(value: unknown): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node === "string") {
      if (!isStorableText(node)) return false;
    } else if (typeof node === "object" && node !== null) {
      if (depth >= MAX_STATE_DEPTH) return false;
      for (const [key, child] of Object.entries(node)) {
        if (!isStorableText(key)) return false;
        stack.push([child, depth + 1]);
      }
    }
  }
  return true;
}
