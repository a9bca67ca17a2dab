/**
 * The per-device MQTT password (CONTRACT.md "MQTT topics"): base64url without padding of
 * HMAC-SHA256(MQTT device key, "mqtt|" + thingName + "|" + credentialVersion). The factory puts
 * it in the `.nfc.json` file as `mqttPassword`; the embedded broker recomputes it on connect, so
 * nothing secret is stored per device and a revoke-and-reissue (a new credential version)
 * retires the old password at once.
 */
import { createHmac } from "node:crypto";

/**
 * The MQTT password of one credential version of one device. Native HMAC (node:crypto, as the
 * storage signatures): it runs for every CONNECT, and the JavaScript SHA-256 took twice as long
 * in a reconnecting fleet's burst (issue 40).
 */
export function deviceMqttPassword(
  deviceKey: Uint8Array,
  thingName: string,
  credentialVersion: number,
): string {
  return createHmac("sha256", deviceKey).update(`mqtt|${thingName}|${credentialVersion}`)
    .digest("base64url");
}
