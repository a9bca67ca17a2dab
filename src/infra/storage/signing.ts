/**
 * HMAC signing of the embedded object store's upload policies and download URLs. Pure functions
 * over a key, so the store and its HTTP routes agree without sharing state.
 */
import { createHmac } from "node:crypto";
import { constantTimeEqual } from "@oslojs/crypto/subtle";
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import { isSafeKey } from "./keys.ts";

const encoder = new TextEncoder();

/** What an upload policy allows: one key, a content-type prefix, a size range, until a time. */
export interface UploadPolicy {
  key: string;
  contentTypePrefix: string;
  maxBytes: number;
  /** Unix seconds. */
  expires: number;
}

/**
 * base64url (no padding) HMAC-SHA256 of `message`; native, as every `GET .../push` signs a URL
 * (issue 13: the pure-JS SHA-256 was a tenth of that request's CPU).
 */
export function sign(secret: string, message: string): string {
  return createHmac("sha256", secret).update(message).digest("base64url");
}

/**
 * Constant-time check of a signature, so a forger learns nothing from response timing. The
 * canonical encoding is compared, not the decoded bytes: base64 with other padding or other
 * unused low bits decodes to the same bytes, and one signature must have one spelling.
 */
export function verify(secret: string, message: string, signature: string): boolean {
  return constantTimeEqual(encoder.encode(sign(secret, message)), encoder.encode(signature));
}

/** Encodes a policy as the `policy` form field (base64url JSON). */
export function encodePolicy(policy: UploadPolicy): string {
  return encodeBase64urlNoPadding(encoder.encode(JSON.stringify(policy)));
}

/**
 * Decodes a `policy` field; null when it is not a well-formed policy (a key no store can hold
 * included: the service never signs one, so it must not reach the disk either).
 */
export function decodePolicy(field: string): UploadPolicy | null {
  try {
    const value = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(field)));
    if (
      typeof value?.key === "string" && isSafeKey(value.key) &&
      typeof value.contentTypePrefix === "string" && value.contentTypePrefix.endsWith("/") &&
      Number.isSafeInteger(value.maxBytes) && value.maxBytes > 0 &&
      Number.isSafeInteger(value.expires)
    ) return value as UploadPolicy;
  } catch { /* malformed */ }
  return null;
}

/** The string a download URL signs: the key and its expiry. */
export function downloadMessage(key: string, expires: number): string {
  return `GET\n${key}\n${expires}`;
}
