/**
 * Webhook signatures (CONTRACT.md "Integrations", like Stripe's): `Webhook-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`.
 */
import { hmac } from "@oslojs/crypto/hmac";
import { SHA256 } from "@oslojs/crypto/sha2";
import { encodeHexLowerCase } from "@oslojs/encoding";
import { timingSafeEqualString } from "../../infra/lib/crypto.ts";

const encoder = new TextEncoder();

/** The header value for `body` signed at `unixSeconds`. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = hmac(SHA256, encoder.encode(secret), encoder.encode(`${unixSeconds}.${body}`));
  return `t=${unixSeconds},v1=${encodeHexLowerCase(mac)}`;
}

/**
 * What a receiver does: true when `header` signs `body` with `secret` and its time is within
 * `toleranceSeconds` of `nowSeconds` (a replayed old delivery is refused).
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean {
  const fields = new Map(
    header.split(",").map((part) => {
      const at = part.indexOf("=");
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const t = Number(fields.get("t"));
  const v1 = fields.get("v1");
  if (!Number.isInteger(t) || !v1) return false;
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  return timingSafeEqualString(signatureHeader(secret, t, body), `t=${t},v1=${v1}`);
}
