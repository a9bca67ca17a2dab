/**
 * The per-device MQTT password (CONTRACT.md "MQTT topics"): base64url without padding of
 * HMAC-SHA256(MQTT device key, "mqtt|" + thingName + "|" + credentialVersion). The factory puts
 * it in the `.nfc.json` file as `mqttPassword`; the embedded broker recomputes it on connect, so
 * nothing secret is stored per device and a revoke-and-reissue (a new credential version)
 * retires the old password at once.
 */
import { hmac } from "@oslojs/crypto/hmac";
import { SHA256 } from "@oslojs/crypto/sha2";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";

/** The MQTT password of one credential version of one device. */
export function deviceMqttPassword(
  deviceKey: Uint8Array,
  thingName: string,
  credentialVersion: number,
): string {
  const message = new TextEncoder().encode(`mqtt|${thingName}|${credentialVersion}`);
  return encodeBase64urlNoPadding(hmac(SHA256, deviceKey, message));
}
