/**
 * Credentials kept at rest sealed (a provider's webhook URL, CONTRACT.md "Displays behind another
 * provider"): AES-256-GCM under a 32-byte key of the service's secrets, a fresh 96-bit nonce per
 * value, stored as `v1.<nonce>.<ciphertext>` in base64url. A database dump alone opens nothing;
 * a value moved to another row still opens (the row is not bound in), which is fine for a URL
 * that grants nothing but posting pictures to the owner's own plugin.
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";

const ALGORITHM = "AES-GCM";

async function keyOf(raw: Uint8Array): Promise<CryptoKey> {
  return await crypto.subtle.importKey(
    "raw",
    raw as Uint8Array<ArrayBuffer>,
    ALGORITHM,
    false,
    ["encrypt", "decrypt"],
  );
}

/** Seals `text` under `key` (32 bytes). */
export async function seal(key: Uint8Array, text: string): Promise<string> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: ALGORITHM, iv: nonce },
    await keyOf(key),
    new TextEncoder().encode(text),
  );
  return `v1.${encodeBase64urlNoPadding(nonce)}.${
    encodeBase64urlNoPadding(new Uint8Array(sealed))
  }`;
}

/** Opens what `seal` made under the same key; throws on any other value or key. */
export async function open(key: Uint8Array, value: string): Promise<string> {
  const [version, nonce, body] = value.split(".");
  if (version !== "v1" || !nonce || !body) throw new Error("Not a sealed value");
  const text = await crypto.subtle.decrypt(
    { name: ALGORITHM, iv: decodeBase64urlIgnorePadding(nonce) as Uint8Array<ArrayBuffer> },
    await keyOf(key),
    decodeBase64urlIgnorePadding(body) as Uint8Array<ArrayBuffer>,
  );
  return new TextDecoder().decode(text);
}
