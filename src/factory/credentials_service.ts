/**
 * NFC credentials and files (SPEC 2.14, 3.4b). Proofs are never stored: a file is rebuilt from
 * the master key whenever it is downloaded, and signed with the current manifest key. Every
 * change writes its audit row in the transaction of the change.
 */
import type { Config } from "../config.ts";
import { conflict, notFound } from "../errors.ts";
import { uuidv7 } from "../lib/ids.ts";
import type { Db, Trx } from "../schema.ts";
import { writeAudit } from "./audit.ts";
import { importManifestPrivateKey, type ManifestKeyRecord, type NfcKeyring } from "./keys.ts";
import { bindUri, computeProof, sha256HexOf, signFile } from "./nfc_crypto.ts";
import type { Principal } from "./principals.ts";
import * as credRepo from "./credentials_repository.ts";
import * as repo from "./repository.ts";
import type { FactoryService } from "./service.ts";
import { toDeviceView } from "./views.ts";

/** Devices per transaction in batch generation. */
const BATCH_CHUNK = 500;
/** The `type` of a `.nfc.json` file. */
export const NFC_FILE_TYPE = "dds.nfc-bind-credential";

export class CredentialsService {
  private signingKey?: Promise<CryptoKey>;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly keys: { nfc: NfcKeyring; manifestKeys: ManifestKeyRecord[] },
    private readonly factory: FactoryService,
  ) {}

  /** SPEC 2.14: the public halves of the manifest signing keys. */
  manifestKeys() {
    return this.keys.manifestKeys.map((k) => ({
      id: k.id,
      publicKey: k.publicKey,
      algorithm: "ed25519" as const,
      createdAt: k.createdAt,
    }));
  }

  /** The newest manifest key signs. */
  private currentManifestKey() {
    return this.keys.manifestKeys[this.keys.manifestKeys.length - 1];
  }

  // ---- issue -------------------------------------------------------------------------------

  /** Issues credential `version` for a locked device with the active master key. */
  private async issue(
    trx: Trx,
    p: Principal,
    device: { id: string; hw_id: string; batch_id: string | null },
    version: number,
  ) {
    const keyId = this.keys.nfc.activeKeyId;
    const payload = await this.payload(keyId, device.hw_id, version);
    const credential = await credRepo.insertCredential(trx, {
      id: uuidv7(),
      device_id: device.id,
      key_id: keyId,
      credential_version: version,
      payload_sha256: await sha256HexOf(payload),
      issued_by: p.id,
      issued_at: new Date(),
    });
    await repo.setDeviceCredential(trx, device.id, {
      nfc_status: "generated",
      credential_version: version,
      nfc_key_id: keyId,
    });
    return credential;
  }

  /** The full bind URI of a credential (holds the proof: never stored, never logged). */
  private async payload(keyId: string, hwId: string, version: number) {
    const proof = await computeProof(this.keys.nfc.keys[keyId], hwId, version);
    return bindUri(this.config.nfc.uriScheme, { keyId, hwId, credentialVersion: version, proof });
  }

  private async credentialView(deviceId: string) {
    const row = await repo.findDeviceView(this.db, deviceId);
    return toDeviceView(this.config.nfc.uriScheme, row!).credential!;
  }

  /** POST /devices/{id}/nfc-files: the first credential; 409 when one is already valid. */
  async generate(p: Principal, deviceId: string) {
    const device = await this.factory.writableDevice(p, deviceId, "nfc_file.generate");
    await this.db.transaction().execute(async (trx) => {
      const locked = await repo.lockDevice(trx, deviceId);
      if (!locked) throw notFound(`Device ${deviceId} not found`);
      if (locked.credential_version > 0) {
        throw conflict(`NFC credential version ${locked.credential_version} is already generated`);
      }
      const c = await this.issue(trx, p, locked, 1);
      await writeAudit(trx, p, {
        action: "nfc_file.generate",
        batchId: device.batch_id,
        deviceId,
        detail: { credentialId: c.id, credentialVersion: 1, keyId: c.key_id },
      });
    });
    return await this.credentialView(deviceId);
  }

  /** Batch generate: every pending device of the batch gets credential version 1. */
  async generateBatch(p: Principal, batchId: string) {
    await this.factory.writableBatch(p, batchId, "nfc_file.generate");
    const pending = (await repo.pendingDeviceIds(this.db, batchId)).map((d) => d.id);
    const keyId = this.keys.nfc.activeKeyId;
    const generated: string[] = [];
    // Chunks of devices per transaction: a 10k-device batch is 20 transactions, not 10k.
    for (let i = 0; i < pending.length; i += BATCH_CHUNK) {
      const ids = await this.db.transaction().execute(async (trx) => {
        // Re-checked under the lock: a device generated meanwhile is skipped, not reissued.
        const devices = await repo.lockPendingDevices(trx, pending.slice(i, i + BATCH_CHUNK));
        if (!devices.length) return [];
        const issuedAt = new Date();
        const rows = await Promise.all(devices.map(async (d) => ({
          id: uuidv7(),
          device_id: d.id,
          key_id: keyId,
          credential_version: 1,
          payload_sha256: await sha256HexOf(await this.payload(keyId, d.hw_id, 1)),
          issued_by: p.id,
          issued_at: issuedAt,
        })));
        await credRepo.insertCredentials(trx, rows);
        await repo.setDevicesCredential(trx, devices.map((d) => d.id), {
          nfc_status: "generated",
          credential_version: 1,
          nfc_key_id: keyId,
        });
        await writeAudit(
          trx,
          p,
          ...rows.map((c) => ({
            action: "nfc_file.generate",
            batchId,
            deviceId: c.device_id,
            detail: { credentialId: c.id, credentialVersion: 1, keyId, via: "batch" },
          })),
        );
        return devices.map((d) => d.id);
      });
      generated.push(...ids);
    }
    const views = await repo.findDeviceViews(this.db, generated);
    const scheme = this.config.nfc.uriScheme;
    const items = views.map((row) => toDeviceView(scheme, row).credential!);
    return { batchId, generated: items.length, items };
  }

  /**
   * SPEC 3.4b: the current credential is revoked (its file 404 and its proof refused by
   * binding from this moment) and version + 1 is issued in the same transaction.
   */
  async revokeAndReissue(p: Principal, deviceId: string, reason?: string) {
    const device = await this.factory.writableDevice(p, deviceId, "nfc_credential.revoke");
    await this.db.transaction().execute(async (trx) => {
      const locked = await repo.lockDevice(trx, deviceId);
      if (!locked) throw notFound(`Device ${deviceId} not found`);
      const current = await credRepo.lockCurrentCredential(
        trx,
        deviceId,
        locked.credential_version,
      );
      if (!current) throw conflict("Device has no NFC credential to revoke");
      await credRepo.revokeCredential(trx, current.id);
      await credRepo.rejectPendingFor(trx, current.id, p.id);
      const next = await this.issue(trx, p, locked, current.credential_version + 1);
      await writeAudit(trx, p, {
        action: "nfc_credential.revoke",
        batchId: device.batch_id,
        deviceId,
        detail: {
          revokedCredentialId: current.id,
          revokedVersion: current.credential_version,
          credentialId: next.id,
          credentialVersion: next.credential_version,
          ...(reason ? { reason } : {}),
        },
      });
    });
    return await this.credentialView(deviceId);
  }

  // ---- files -------------------------------------------------------------------------------

  /** The signed `.nfc.json` of a credential (SPEC 2.14). */
  async buildFile(c: credRepo.CredentialRow) {
    const manifestKey = this.currentManifestKey();
    const file: Record<string, unknown> = {
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
      issuedAt: c.issued_at.toISOString(),
      manifestKeyId: manifestKey.id,
    };
    this.signingKey ??= importManifestPrivateKey(manifestKey);
    file.manifestSignature = await signFile(await this.signingKey, file);
    return file;
  }
}
