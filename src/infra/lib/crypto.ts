/** Small crypto helpers shared by every domain: digests, random tokens, constant-time checks. */
import { sha256 } from "@oslojs/crypto/sha2";
import { constantTimeEqual } from "@oslojs/crypto/subtle";
import { encodeBase64urlNoPadding, encodeHexLowerCase } from "@oslojs/encoding";

const encoder = new TextEncoder();

/** SHA-256 of a UTF-8 string as lower-case hex; tokens are stored only as this digest. */
export function sha256Hex(text: string): string {
  return encodeHexLowerCase(sha256(encoder.encode(text)));
}

/** `bytes` random bytes, base64url without padding. */
export function randomToken(bytes = 32): string {
  return encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Random string over an alphabet with no modulo bias (rejection sampling). */
export function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (b < limit && out.length < length) out += alphabet[b % alphabet.length];
    }
  }
  return out;
}

/**
 * Constant-time string equality. Both sides are hashed first so that neither the content nor
 * the length of the secret leaks through timing.
 */
export function timingSafeEqualString(a: string, b: string): boolean {
  return constantTimeEqual(sha256(encoder.encode(a)), sha256(encoder.encode(b)));
}
