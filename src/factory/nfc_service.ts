/**
 * NFC credentials, files and downloads (SPEC 2.14, 3.4b, 3.5b, 4.8). Proofs are never stored:
 * a file is rebuilt from the master key whenever it is downloaded, and signed with the current
 * manifest key. Every change writes its audit row in its own transaction.
 */
import { zipSync } from "fflate";
import type { Config } from "../config.ts";
import { AppError, badRequest, conflict, forbidden, notFound } from "../errors.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { isUuid, uuidv7 } from "../lib/ids.ts";
import type { Db, Trx } from "../schema.ts";
import { writeAudit } from "./audit.ts";
import { importManifestPrivateKey, type ManifestKeyRecord, type NfcKeyring } from "./keys.ts";
import { bindUri, computeProof, sha256HexOf, signFile } from "./nfc_crypto.ts";
import { inScope, type Principal } from "./principals.ts";
import { FixedWindowLimiter } from "./rate_limit.ts";
import * as repo from "./repository.ts";
import type { FactoryService } from "./service.ts";
import { toDeviceView, toDownloadRequest } from "./views.ts";

/** How long an approved download request stays usable (SPEC 8 leaves it open). */
export const APPROVAL_WINDOW_MS = 15 * 60 * 1000;
/** The `type` of a `.nfc.json` file. */
export const NFC_FILE_TYPE = "dds.nfc-bind-credential";

export class NfcService {
  private readonly limiter: FixedWindowLimiter;
  private signingKey?: Promise<CryptoKey>;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly keys: { nfc: NfcKeyring; manifestKeys: ManifestKeyRecord[] },
    private readonly factory: FactoryService,
  ) {
    this.limiter = new FixedWindowLimiter(config.factoryDownloadsPerMinute, 60_000);
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
    const proof = await computeProof(this.keys.nfc.keys[keyId], device.hw_id, version);
    const payload = bindUri(this.config.nfc.uriScheme, {
      keyId,
      hwId: device.hw_id,
      credentialVersion: version,
      proof,
    });
    const credential = await repo.insertCredential(trx, {
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
    const pending = await repo.pendingDeviceIds(this.db, batchId);
    const items = [];
    for (const { id } of pending) {
      const issued = await this.db.transaction().execute(async (trx) => {
        const locked = await repo.lockDevice(trx, id);
        if (!locked || locked.credential_version > 0) return false; // generated meanwhile
        const c = await this.issue(trx, p, locked, 1);
        await writeAudit(trx, p, {
          action: "nfc_file.generate",
          batchId,
          deviceId: id,
          detail: { credentialId: c.id, credentialVersion: 1, keyId: c.key_id, via: "batch" },
        });
        return true;
      });
      if (issued) items.push(await this.credentialView(id));
    }
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
      const current = await repo.lockCurrentCredential(trx, deviceId, locked.credential_version);
      if (!current) throw conflict("Device has no NFC credential to revoke");
      await repo.revokeCredential(trx, current.id);
      await repo.rejectPendingFor(trx, current.id, p.id);
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

  // ---- files and downloads -----------------------------------------------------------------

  /** The signed `.nfc.json` of a credential (SPEC 2.14). */
  async buildFile(c: repo.CredentialRow) {
    const proof = await computeProof(this.keys.nfc.keys[c.key_id], c.hw_id, c.credential_version);
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
      nfcPayload: bindUri(this.config.nfc.uriScheme, {
        keyId: c.key_id,
        hwId: c.hw_id,
        credentialVersion: c.credential_version,
        proof,
      }),
      payloadSha256: c.payload_sha256,
      issuedAt: c.issued_at.toISOString(),
      manifestKeyId: manifestKey.id,
    };
    this.signingKey ??= importManifestPrivateKey(manifestKey);
    file.manifestSignature = await signFile(await this.signingKey, file);
    return file;
  }

  /** SPEC 8: the per-principal download limit; 429 with Retry-After when exceeded. */
  private async rateLimit(p: Principal, action: string) {
    const wait = this.limiter.hit(p.id);
    if (wait === null) return;
    await writeAudit(this.db, p, { action, result: "denied", detail: { reason: "rate limited" } });
    throw new AppError("rate_limited", "Too many downloads; retry later", {
      "Retry-After": String(wait),
    });
  }

  /**
   * GET /nfc-files/{id}/download. First download: direct. Repeat: a supervisor directly, an
   * operator only by consuming one of their approved, unexpired requests.
   */
  async download(p: Principal, credentialId: string) {
    await this.rateLimit(p, "nfc_file.download");
    if (!isUuid(credentialId)) throw badRequest("credentialId must be a UUID");
    const c = await repo.findCredential(this.db, credentialId);
    if (!c || c.status === "revoked") throw notFound(`Credential ${credentialId} not found`);
    await this.factory.authorize(
      p,
      { batchId: c.batch_id!, orderNo: c.order_no, sku: c.sku, deviceId: c.device_id },
      "write",
      "nfc_file.download",
    );
    const outcome = await this.db.transaction().execute(async (trx) => {
      const locked = await repo.lockCredential(trx, credentialId);
      if (!locked || locked.status === "revoked") return { kind: "gone" as const };
      let via = "first";
      let requestId: string | undefined;
      if (locked.download_count > 0) {
        if (p.role === "supervisor") via = "supervisor";
        else {
          const approval = await repo.lockUsableApproval(trx, credentialId, p.id, new Date());
          if (!approval) return { kind: "denied" as const };
          await repo.markApprovalUsed(trx, approval.id);
          via = "approval";
          requestId = approval.id;
        }
      }
      await repo.markDownloaded(trx, credentialId, locked.device_id);
      await writeAudit(trx, p, {
        action: "nfc_file.download",
        batchId: locked.batch_id,
        deviceId: locked.device_id,
        detail: {
          credentialId,
          credentialVersion: locked.credential_version,
          downloadCount: locked.download_count + 1,
          via,
          ...(requestId ? { requestId } : {}),
        },
      });
      return {
        kind: "ok" as const,
        file: await this.buildFile(locked),
        serial: locked.serial ?? c.hw_id,
      };
    });
    if (outcome.kind === "gone") throw notFound(`Credential ${credentialId} not found`);
    if (outcome.kind === "denied") {
      await writeAudit(this.db, p, {
        action: "nfc_file.download",
        result: "denied",
        batchId: c.batch_id,
        deviceId: c.device_id,
        detail: { credentialId, reason: "repeat download not approved" },
      });
      throw forbidden("Repeat download needs an approved download request");
    }
    return { file: outcome.file, fileName: `${outcome.serial}.nfc.json` };
  }

  /** POST /nfc-files:download-zip (supervisor): every valid file of a batch in one ZIP. */
  async downloadZip(p: Principal, batchId: string) {
    await this.rateLimit(p, "nfc_file.download_zip");
    const batch = await this.factory.writableBatch(p, batchId, "nfc_file.download_zip");
    const files = await this.db.transaction().execute(async (trx) => {
      const credentials = await repo.lockBatchCredentials(trx, batchId);
      if (!credentials.length) throw notFound(`Batch ${batch.order_no} has no NFC files`);
      const out: Record<string, Uint8Array> = {};
      const encoder = new TextEncoder();
      for (const c of credentials) {
        await repo.markDownloaded(trx, c.id, c.device_id);
        out[`${c.serial ?? c.hw_id}.nfc.json`] = encoder.encode(
          JSON.stringify(await this.buildFile(c), null, 2),
        );
      }
      await writeAudit(
        trx,
        p,
        ...credentials.map((c) => ({
          action: "nfc_file.download",
          batchId,
          deviceId: c.device_id,
          detail: {
            credentialId: c.id,
            credentialVersion: c.credential_version,
            downloadCount: c.download_count + 1,
            via: "zip",
          },
        })),
        { action: "nfc_file.download_zip", batchId, detail: { files: credentials.length } },
      );
      return out;
    });
    return { zip: zipSync(files, { level: 6 }), fileName: `${batch.order_no}.nfc.zip` };
  }

  // ---- download requests (SPEC 3.5b) -------------------------------------------------------

  async createRequest(p: Principal, credentialId: string) {
    if (!isUuid(credentialId)) throw badRequest("credentialId must be a UUID");
    const c = await repo.findCredential(this.db, credentialId);
    if (!c || c.status === "revoked") throw notFound(`Credential ${credentialId} not found`);
    await this.factory.authorize(
      p,
      { batchId: c.batch_id!, orderNo: c.order_no, sku: c.sku, deviceId: c.device_id },
      "write",
      "download_request.create",
    );
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await repo.insertDownloadRequest(trx, {
          id: uuidv7(),
          credential_id: credentialId,
          requested_by: p.id,
        });
        await writeAudit(trx, p, {
          action: "download_request.create",
          batchId: c.batch_id,
          deviceId: c.device_id,
          detail: { requestId: row.id, credentialId },
        });
        return toDownloadRequest(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw conflict(`A download request is already pending for credential ${credentialId}`);
      }
      throw error;
    }
  }

  /** Approve (window of APPROVAL_WINDOW_MS for one download) or reject with a reason. */
  async decide(p: Principal, requestId: string, decision: "approve" | "reject", reason?: string) {
    if (!isUuid(requestId)) throw badRequest("requestId must be a UUID");
    const action = `download_request.${decision}`;
    const result = await this.db.transaction().execute(async (trx) => {
      const r = await repo.lockDownloadRequest(trx, requestId);
      if (!r) return { kind: "missing" as const };
      if (!inScope(p, { id: r.batch_id!, orderNo: r.order_no }, r.sku)) {
        return { kind: "scope" as const, r };
      }
      if (r.status !== "pending") throw conflict(`Download request is already ${r.status}`);
      const now = new Date();
      const row = await repo.decideDownloadRequest(
        trx,
        requestId,
        decision === "approve"
          ? {
            status: "approved",
            decided_by: p.id,
            decided_at: now,
            expires_at: new Date(now.getTime() + APPROVAL_WINDOW_MS),
          }
          : { status: "rejected", decided_by: p.id, decided_at: now, reason: reason ?? null },
      );
      await writeAudit(trx, p, {
        action,
        batchId: r.batch_id,
        deviceId: r.device_id,
        detail: {
          requestId,
          credentialId: r.credential_id,
          requestedBy: r.requested_by,
          ...(reason ? { reason } : {}),
        },
      });
      return { kind: "ok" as const, row };
    });
    if (result.kind === "missing") throw notFound(`Download request ${requestId} not found`);
    if (result.kind === "scope") {
      const r = result.r;
      await this.factory.authorize(
        p,
        { batchId: r.batch_id!, orderNo: r.order_no, sku: r.sku, deviceId: r.device_id },
        "write",
        action,
      );
    }
    return toDownloadRequest((result as { row: Parameters<typeof toDownloadRequest>[0] }).row);
  }

  /** Requests in scope; an operator sees only their own (they are the only ones they can use). */
  async listRequests(
    p: Principal,
    f: { status?: string; batchId?: string; limit: number; offset: number },
  ) {
    const { rows, total } = await repo.listDownloadRequests(this.db, p, {
      ...f,
      requestedBy: p.role === "operator" ? p.id : undefined,
    });
    return { items: rows.map(toDownloadRequest), total, limit: f.limit, offset: f.offset };
  }
}
