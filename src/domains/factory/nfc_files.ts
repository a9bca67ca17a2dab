/**
 * The signed `.nfc.json` file (SPEC 2.14, CONTRACT.md "NFC bind URI" and "MQTT topics"). Proofs
 * and MQTT passwords are never stored: both are derived from their keys whenever a file is built,
 * and the newest manifest key signs the whole file, `mqttPassword` included.
 */
import { z } from "zod";
import type { Config } from "../../config.ts";
import { timestamp } from "../../infra/lib/wire.ts";
import { deviceMqttPassword } from "../../infra/mqtt/device_secret.ts";
import { importManifestPrivateKey, type ManifestKeyRecord, type NfcKeyring } from "./keys.ts";
import { bindUri, computeProof, signFile } from "./nfc_crypto.ts";

/** The `type` of a `.nfc.json` file. */
export const NFC_FILE_TYPE = "dds.nfc-bind-credential";

/** The file as downloaded (SPEC 2.14); `build` returns exactly this. */
export const nfcFileSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal(NFC_FILE_TYPE),
  serial: z.string(),
  hwId: z.string(),
  thingName: z.string(),
  batchId: z.uuid().nullable(),
  sku: z.string(),
  hwRevision: z.string(),
  keyId: z.string(),
  credentialVersion: z.number().int(),
  nfcPayload: z.string().meta({ description: "The bind URI to write to the tag" }),
  payloadSha256: z.string(),
  mqttPassword: z.string().meta({
    description: "The device's MQTT password for this credential version (not for the tag)",
  }),
  issuedAt: timestamp,
  manifestKeyId: z.string(),
  manifestSignature: z.string().meta({
    description: "Ed25519 signature, by the manifest key, of every other field",
  }),
}).meta({ id: "NfcFile" });

export type NfcFile = z.infer<typeof nfcFileSchema>;

/** The key material files are made from. */
export interface FileKeys {
  nfc: NfcKeyring;
  /** Oldest first; the last one signs. */
  manifestKeys: ManifestKeyRecord[];
  /** Key of the per-device MQTT passwords (CONTRACT.md "MQTT topics"). */
  mqttDeviceKey: Uint8Array;
}

/** What a file is built from: a credential row with its device and batch. */
export interface FileSource {
  key_id: string;
  credential_version: number;
  payload_sha256: string;
  issued_at: Date;
  serial: string | null;
  hw_id: string;
  thing_name: string;
  batch_id: string | null;
  sku: string | null;
  hw_revision: string | null;
}

/** Builds bind URIs and signed files. */
export class NfcFiles {
  private signingKey?: Promise<CryptoKey>;

  constructor(private readonly config: Config, private readonly keys: FileKeys) {}

  /** The NFC master key new credentials are issued with. */
  get activeKeyId(): string {
    return this.keys.nfc.activeKeyId;
  }

  /** SPEC 2.14: the public halves of the manifest signing keys. */
  manifestKeys() {
    return this.keys.manifestKeys.map((k) => ({
      id: k.id,
      publicKey: k.publicKey,
      algorithm: "ed25519" as const,
      createdAt: k.createdAt,
    }));
  }

  /** The full bind URI of a credential (holds the proof: never stored, never logged). */
  async payload(keyId: string, hwId: string, version: number): Promise<string> {
    const proof = await computeProof(this.keys.nfc.keys[keyId], hwId, version);
    return bindUri(this.config.nfc.uriScheme, { keyId, hwId, credentialVersion: version, proof });
  }

  /**
   * The signed `.nfc.json` of a credential. `mqttPassword` is the device's broker secret for this
   * credential version: the station hands it to the device, never to the tag (it is not part of
   * `nfcPayload`), and a revoke-and-reissue changes it with the version.
   */
  async build(c: FileSource): Promise<NfcFile> {
    const manifestKey = this.keys.manifestKeys[this.keys.manifestKeys.length - 1];
    const file: Omit<NfcFile, "manifestSignature"> = {
      schemaVersion: 1,
      type: NFC_FILE_TYPE,
      serial: c.serial ?? "",
      hwId: c.hw_id,
      thingName: c.thing_name,
      batchId: c.batch_id,
      sku: c.sku ?? "",
      hwRevision: c.hw_revision ?? "",
      keyId: c.key_id,
      credentialVersion: c.credential_version,
      nfcPayload: await this.payload(c.key_id, c.hw_id, c.credential_version),
      payloadSha256: c.payload_sha256,
      mqttPassword: deviceMqttPassword(
        this.keys.mqttDeviceKey,
        c.thing_name,
        c.credential_version,
      ),
      issuedAt: c.issued_at.toISOString(),
      manifestKeyId: manifestKey.id,
    };
    this.signingKey ??= importManifestPrivateKey(manifestKey);
    return { ...file, manifestSignature: await signFile(await this.signingKey, file) };
  }
}
