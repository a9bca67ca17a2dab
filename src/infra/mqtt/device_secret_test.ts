import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { deviceMqttPassword } from "./device_secret.ts";

Deno.test("device MQTT password: HMAC-SHA256 of mqtt|thing|version, base64url", async () => {
  const key = new Uint8Array(32).fill(7);
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    key,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode("mqtt|dds-abc|2")),
  );
  const expected = btoa(String.fromCharCode(...mac)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
  assertEquals(deviceMqttPassword(key, "dds-abc", 2), expected);
  assert.notEqual(deviceMqttPassword(key, "dds-abc", 3), expected);
});
