/** Small readers of what Apple sends (SPEC 4.2): the native nonce rule and the form's name. */
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import { timingSafeEqualString } from "../../infra/lib/crypto.ts";

const encoder = new TextEncoder();

/**
 * SPEC 4.2: the request's nonce must equal the token's. Apps commonly give Apple the SHA-256
 * hex of their raw nonce, so the hash of the presented nonce is accepted as equal too.
 */
export function nonceMatches(tokenNonce: unknown, presented: string): boolean {
  if (typeof tokenNonce !== "string") return false;
  return timingSafeEqualString(tokenNonce, presented) ||
    timingSafeEqualString(tokenNonce, encodeHexLowerCase(sha256(encoder.encode(presented))));
}

/** The name in Apple's `user` form field (`{"name":{"firstName","lastName"},"email"}`). */
export function appleFormName(field: string | null): string | undefined {
  if (!field) return undefined;
  try {
    const name = (JSON.parse(field) as { name?: { firstName?: unknown; lastName?: unknown } })
      .name;
    const parts = [name?.firstName, name?.lastName]
      .filter((p): p is string => typeof p === "string" && p.trim() !== "").map((p) => p.trim());
    return parts.length ? parts.join(" ") : undefined;
  } catch {
    return undefined;
  }
}
