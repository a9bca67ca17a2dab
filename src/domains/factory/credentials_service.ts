/**
 * NFC credentials (SPEC 2.14, 3.4b): the first credential of a device, of every pending device
 * of a batch the principal may reach, and revoke-and-reissue. Proofs are never stored. Every
 * change writes its audit row in the transaction of the change.
 */
import type { Config } from "../../config.ts";
import { conflict, notFound } from "../../errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { Db, Trx } from "../../schema.ts";
import type { FactoryAccess } from "./access.ts";
import { writeAudit } from "./audit_service.ts";
import * as credRepo from "./credentials_repository.ts";
import * as devRepo from "./devices_repository.ts";
import { rejectPendingFor } from "./download_requests_repository.ts";
import { sha256HexOf } from "./nfc_crypto.ts";
import type { NfcFiles } from "./nfc_files.ts";
import type { Principal } from "./principals.ts";
import { toDeviceView } from "./views.ts";

/** Devices per transaction in batch generation. */
const BATCH_CHUNK = 500;

/** Issuing and revoking NFC credentials. */
export class CredentialsService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly access: FactoryAccess,
    private readonly files: NfcFiles,
  ) {}

  /**
   * The status and key id of the device's credential of `version`, or undefined, in the caller's
   * transaction (NFC binding checks it under its lock of the device row).
   */
  async stateOf(trx: Trx, deviceId: string, version: number) {
    return await credRepo.credentialState(trx, deviceId, version);
  }

  /** Issues credential `version` for a locked device with the active master key. */
  private async issue(
    trx: Trx,
    p: Principal,
    device: { id: string; hw_id: string },
    version: number,
  ) {
    const keyId = this.files.activeKeyId;
    const payload = await this.files.payload(keyId, device.hw_id, version);
    const credential = await credRepo.insertCredential(trx, {
      id: uuidv7(),
      device_id: device.id,
      key_id: keyId,
      credential_version: version,
      payload_sha256: await sha256HexOf(payload),
      issued_by: p.id,
      issued_at: new Date(),
    });
    await devRepo.setDeviceCredential(trx, device.id, {
      nfc_status: "generated",
      credential_version: version,
      nfc_key_id: keyId,
    });
    return credential;
  }

  private async credentialView(deviceId: string) {
    const row = await devRepo.findDeviceView(this.db, deviceId);
    return toDeviceView(this.config.nfc.uriScheme, row!).credential!;
  }

  /** POST /devices/{id}/nfc-files: the first credential; 409 when one is already valid. */
  async generate(p: Principal, deviceId: string) {
    const device = await this.access.device(p, deviceId, "write", "nfc_file.generate");
    await this.db.transaction().execute(async (trx) => {
      const locked = await devRepo.lockDevice(trx, deviceId);
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

  /**
   * Batch generate: every pending device of the batch that the principal may reach gets
   * credential version 1. Devices of the batch outside the principal's scope (another SKU) are
   * left alone and not reported (issue 16).
   */
  async generateBatch(p: Principal, batchId: string) {
    await this.access.batch(p, batchId, "write", "nfc_file.generate");
    const pending = (await devRepo.pendingDeviceIds(this.db, p, batchId)).map((d) => d.id);
    const keyId = this.files.activeKeyId;
    const generated: string[] = [];
    // Chunks of devices per transaction: a 10k-device batch is 20 transactions, not 10k.
    for (let i = 0; i < pending.length; i += BATCH_CHUNK) {
      const ids = await this.db.transaction().execute(async (trx) => {
        // Re-checked under the lock: a device generated meanwhile is skipped, not reissued.
        const devices = await devRepo.lockPendingDevices(trx, pending.slice(i, i + BATCH_CHUNK));
        if (!devices.length) return [];
        const issuedAt = new Date();
        const rows = await Promise.all(devices.map(async (d) => ({
          id: uuidv7(),
          device_id: d.id,
          key_id: keyId,
          credential_version: 1,
          payload_sha256: await sha256HexOf(await this.files.payload(keyId, d.hw_id, 1)),
          issued_by: p.id,
          issued_at: issuedAt,
        })));
        await credRepo.insertCredentials(trx, rows);
        await devRepo.setDevicesCredential(trx, devices.map((d) => d.id), {
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
    const views = await devRepo.findDeviceViews(this.db, generated);
    const scheme = this.config.nfc.uriScheme;
    const items = views.map((row) => toDeviceView(scheme, row).credential!);
    return { batchId, generated: items.length, items };
  }

  /**
   * SPEC 3.4b: the current credential is revoked (its file 404 and its proof refused by
   * binding from this moment) and version + 1 is issued in the same transaction; the device's
   * MQTT password changes with the version.
   */
  async revokeAndReissue(p: Principal, deviceId: string, reason?: string) {
    const device = await this.access.device(p, deviceId, "write", "nfc_credential.revoke");
    await this.db.transaction().execute(async (trx) => {
      const locked = await devRepo.lockDevice(trx, deviceId);
      if (!locked) throw notFound(`Device ${deviceId} not found`);
      const current = await credRepo.lockCurrentCredential(
        trx,
        deviceId,
        locked.credential_version,
      );
      if (!current) throw conflict("Device has no NFC credential to revoke");
      await credRepo.revokeCredential(trx, current.id);
      await rejectPendingFor(trx, current.id, p.id);
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
}
