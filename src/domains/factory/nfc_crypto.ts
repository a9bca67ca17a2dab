/**
 * Pure NFC credential cryptography (CONTRACT.md "NFC bind URI"): per-device key derivation,
 * the truncated HMAC proof, the bind URI, canonical JSON and Ed25519 manifest signatures.
 * The binding side (`src/domains/binding/`) verifies with the same functions.
 */
import { canonicalJson } from "../../infra/lib/canonical_json.ts";
import { decodeBase64, decodeBase64urlIgnorePadding, encodeBase64 } from "@oslojs/encoding";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import { constantTimeEqual } from "@oslojs/crypto/subtle";

const encoder = new TextEncoder();
/** HKDF info string of CONTRACT.md; changing it invalidates every tag in the field. */
export const HKDF_INFO = "dds-nfc-bind-v2";
/** The only accepted bind format (SPEC 9.4: version 1 is retired). */
export const BIND_VERSION = 2;
export const HW_ID = /^[0-9a-f]{32}$/;

/** HKDF-SHA256(ikm = master key, salt = UTF-8 hwId, info = "dds-nfc-bind-v2") → 32 bytes. */
export async function deriveDeviceKey(masterKey: Uint8Array, hwId: string): Promise<Uint8Array> {
  const ikm = await crypto.subtle.importKey("raw", masterKey.slice(), "HKDF", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode(hwId), info: encoder.encode(HKDF_INFO) },
    ikm,
    256,
  );
  return new Uint8Array(bits);
}

/** The raw 16-byte proof: HMAC-SHA256(device key, "v2|hwId|credentialVersion")[0..16]. */
export async function proofBytes(
  deviceKey: Uint8Array,
  hwId: string,
  credentialVersion: number,
): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    deviceKey.slice(),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    encoder.encode(`v2|${hwId}|${credentialVersion}`),
  );
  return new Uint8Array(mac).slice(0, 16);
}

/** The proof as it appears in the URI: base64url without padding (22 characters). */
export async function computeProof(
  masterKey: Uint8Array,
  hwId: string,
  credentialVersion: number,
): Promise<string> {
  return encodeBase64urlNoPadding(
    await proofBytes(await deriveDeviceKey(masterKey, hwId), hwId, credentialVersion),
  );
}

/**
 * True when `proof` is the valid proof for (hwId, credentialVersion) under `masterKey`.
 * The decoded bytes are compared in constant time so that a near-miss leaks nothing.
 */
export async function verifyProof(
  masterKey: Uint8Array,
  hwId: string,
  credentialVersion: number,
  proof: string,
): Promise<boolean> {
  let given: Uint8Array;
  try {
    if (!/^[A-Za-z0-9_-]{22}$/.test(proof)) return false;
    given = decodeBase64urlIgnorePadding(proof);
  } catch {
    return false;
  }
  const expected = await proofBytes(
    await deriveDeviceKey(masterKey, hwId),
    hwId,
    credentialVersion,
  );
  return constantTimeEqual(given, expected);
}

export interface BindParams {
  keyId: string;
  hwId: string;
  credentialVersion: number;
  proof: string;
}

/** `${scheme}://bind?v=2&kid=…&hw=…&cv=…&p=…` (SPEC 2.14). */
export function bindUri(scheme: string, p: BindParams): string {
  const kid = encodeURIComponent(p.keyId);
  return `${scheme}://bind?v=${BIND_VERSION}&kid=${kid}&hw=${p.hwId}&cv=${p.credentialVersion}&p=${p.proof}`;
}

/** SPEC 2.14: `payloadPreview` always replaces the proof with four asterisks. */
export function maskedBindUri(scheme: string, p: Omit<BindParams, "proof">): string {
  return bindUri(scheme, { ...p, proof: "****" });
}

/** The bytes a manifest signature covers: the file without `manifestSignature`. */
export function signedBytes(file: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const { manifestSignature: _, ...rest } = file;
  return encoder.encode(canonicalJson(rest));
}

/** Ed25519 signature of the file, base64 (standard alphabet, padded). */
export async function signFile(
  privateKey: CryptoKey,
  file: Record<string, unknown>,
): Promise<string> {
  return encodeBase64(
    new Uint8Array(await crypto.subtle.sign("Ed25519", privateKey, signedBytes(file))),
  );
}

/** Verifies a file's `manifestSignature` with a base64 raw Ed25519 public key. */
export async function verifyFile(
  publicKeyBase64: string,
  file: Record<string, unknown>,
): Promise<boolean> {
  if (typeof file.manifestSignature !== "string") return false;
  const key = await crypto.subtle.importKey(
    "raw",
    decodeBase64(publicKeyBase64).slice(),
    "Ed25519",
    false,
    ["verify"],
  );
  return await crypto.subtle.verify(
    "Ed25519",
    key,
    decodeBase64(file.manifestSignature).slice(),
    signedBytes(file),
  );
}

/** Hex SHA-256 of the payload string, for read-back verification of a written tag. */
export async function sha256HexOf(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
