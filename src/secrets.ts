/**
 * Secrets that the service generates once and keeps under DATA_DIR when they are not configured,
 * so a fresh `deno task start` needs no setup and restarts keep tokens valid.
 */
import { decodeBase64, encodeBase64 } from "@oslojs/encoding";
import { randomToken } from "./infra/lib/crypto.ts";
import type { Config } from "./config.ts";
import {
  generateManifestKey,
  generateMasterKey,
  type ManifestKeyRecord,
  type NfcKeyring,
  nfcKeyringOf,
} from "./domains/factory/keys.ts";

/** Secrets that are generated and kept under DATA_DIR when not configured. */
export interface Secrets {
  jwtSecret: string;
  /** NFC master keys (NFC_MASTER_KEYS or generated). */
  nfc: NfcKeyring;
  /** Ed25519 manifest signing keys, oldest first; the last one signs. */
  manifestKeys: ManifestKeyRecord[];
  /** HMAC key of the embedded object store's signed URLs and upload policies. */
  storageSecret: string;
  /** Password of the service's own client on the embedded MQTT broker. */
  mqttServiceSecret: string;
  /** Key of the per-device MQTT passwords (MQTT_DEVICE_KEY or generated; 32 bytes). */
  mqttDeviceKey: Uint8Array;
  /** AES-256-GCM key sealing providers' credentials at rest (generated; 32 bytes). */
  providerKey: Uint8Array;
}

/** Loads (or creates) `DATA_DIR/secrets.json` and overlays configured values. */
export async function loadSecrets(config: Config): Promise<Secrets & { generated: string[] }> {
  const file = `${config.dataDir}/secrets.json`;
  // deno-lint-ignore no-explicit-any -- a small JSON file of strings and key records
  let stored: Record<string, any> = {};
  let existed = true;
  try {
    stored = JSON.parse(await Deno.readTextFile(file));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    existed = false;
  }
  const generated: string[] = [];
  if (!config.jwtSecret && !stored.jwtSecret) {
    stored.jwtSecret = randomToken(48);
    generated.push("JWT_SECRET");
  }
  // CONTRACT.md: without NFC_MASTER_KEYS one master key is generated once and kept.
  if (!config.nfc.masterKeys && !stored.nfcMasterKeys) {
    stored.nfcMasterKeys = { k1: generateMasterKey() };
    generated.push("NFC_MASTER_KEYS");
  }
  // Manifest signing keys are always the service's own: generated once, kept, never exported.
  if (!Array.isArray(stored.manifestKeys) || !stored.manifestKeys.length) {
    stored.manifestKeys = [await generateManifestKey(`mk-${Date.now().toString(36)}`)];
    generated.push("manifest signing key");
  }
  // Never configured, always generated: the embedded object store's URL-signing key and the
  // password of the service's own client on the embedded MQTT broker.
  for (const name of ["storageSecret", "mqttServiceSecret"] as const) {
    if (!stored[name]) {
      stored[name] = randomToken(32);
      generated.push(name);
    }
  }
  // CONTRACT.md "MQTT topics": the key of the per-device MQTT secrets, base64 of 32 bytes.
  if (!config.mqtt.deviceKey && !stored.mqttDeviceKey) {
    stored.mqttDeviceKey = encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
    generated.push("MQTT_DEVICE_KEY");
  }
  // CONTRACT.md "Displays behind another provider": their credentials are kept sealed.
  if (!stored.providerKey) {
    stored.providerKey = encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
    generated.push("providerKey");
  }
  if (generated.length) {
    await Deno.mkdir(config.dataDir, { recursive: true });
    const text = JSON.stringify(stored, null, 2);
    if (existed) await Deno.writeTextFile(file, text, { mode: 0o600 });
    // Several processes sharing DATA_DIR may start at once (docs/deploy.md): the first file
    // wins, written whole then linked into place; the others read the winner's secrets.
    else if (!(await createOnce(file, text))) return await loadSecrets(config);
  }
  const nfc = config.nfc.masterKeys
    ? nfcKeyringOf(config.nfc.masterKeys, config.nfc.activeKeyId)
    : nfcKeyringOf(stored.nfcMasterKeys, config.nfc.activeKeyId);
  return {
    jwtSecret: config.jwtSecret ?? stored.jwtSecret,
    nfc,
    manifestKeys: stored.manifestKeys as ManifestKeyRecord[],
    storageSecret: stored.storageSecret,
    mqttServiceSecret: stored.mqttServiceSecret,
    mqttDeviceKey: decodeBase64(config.mqtt.deviceKey ?? stored.mqttDeviceKey),
    providerKey: decodeBase64(stored.providerKey),
    // Internal secrets are not worth a banner line; configurable ones are.
    generated: generated.filter((name) =>
      !["storageSecret", "mqttServiceSecret", "providerKey"].includes(name)
    ),
  };
}

/** Creates `file` with `text` unless it exists (atomically); false when another was first. */
async function createOnce(file: string, text: string): Promise<boolean> {
  const temporary = `${file}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, text, { mode: 0o600 });
  try {
    await Deno.link(temporary, file);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  } finally {
    await Deno.remove(temporary).catch(() => {});
  }
}
