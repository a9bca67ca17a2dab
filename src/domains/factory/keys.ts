/**
 * The factory's key material: NFC master keys (CONTRACT.md NFC_MASTER_KEYS / NFC_ACTIVE_KEY_ID)
 * and Ed25519 manifest signing keys. Loaded once at start-up by `secrets.ts`.
 */
import { decodeBase64, encodeBase64 } from "@oslojs/encoding";
import { ConfigError } from "../../config.ts";

/** NFC master keys by key id; `activeKeyId` signs new credentials, all keys still verify. */
export interface NfcKeyring {
  keys: Record<string, Uint8Array>;
  activeKeyId: string;
}

/** A stored manifest key; the private half is PKCS#8, base64. */
export interface ManifestKeyRecord {
  id: string;
  publicKey: string;
  privateKey: string;
  createdAt: string;
}

/** Builds the keyring from configured base64 keys; throws naming the bad variable. */
export function nfcKeyringOf(keys: Record<string, string>, activeKeyId?: string): NfcKeyring {
  const decoded: Record<string, Uint8Array> = {};
  for (const [id, b64] of Object.entries(keys)) {
    const bytes = decodeBase64(b64);
    if (bytes.byteLength !== 32) {
      throw new ConfigError(`Invalid NFC_MASTER_KEYS: key ${id} is not 32 bytes`);
    }
    decoded[id] = bytes;
  }
  const ids = Object.keys(decoded);
  if (!ids.length) throw new ConfigError("Invalid NFC_MASTER_KEYS: no keys");
  const active = activeKeyId ?? ids[0];
  if (!decoded[active]) throw new ConfigError(`Invalid NFC_ACTIVE_KEY_ID: no key ${active}`);
  return { keys: decoded, activeKeyId: active };
}

/** A fresh 32-byte master key, base64. */
export function generateMasterKey(): string {
  return encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** A fresh Ed25519 manifest key pair in its stored form. */
export async function generateManifestKey(id: string): Promise<ManifestKeyRecord> {
  const pair = await crypto.subtle.generateKey("Ed25519", true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  return {
    id,
    publicKey: encodeBase64(new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey))),
    privateKey: encodeBase64(
      new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey)),
    ),
    createdAt: new Date().toISOString(),
  };
}

/** Imports the private half for signing. */
export function importManifestPrivateKey(record: ManifestKeyRecord): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "pkcs8",
    decodeBase64(record.privateKey).slice(),
    "Ed25519",
    false,
    [
      "sign",
    ],
  );
}
