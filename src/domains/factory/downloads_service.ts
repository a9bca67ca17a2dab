/**
 * Downloads and download requests (SPEC 3.5b, 4.8, 8): first download direct, repeat downloads
 * by supervisors or through one approved request, a per-principal rate limit, the batch ZIP of
 * the files the principal may reach.
 */
import { zipSync } from "fflate";
import type { Config } from "../../config.ts";
import { AppError, badRequest, conflict, forbidden, notFound } from "../../errors.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { Db } from "../../schema.ts";
import { type FactoryAccess, repeatsDownloadsDirectly, requestsListedFor } from "./access.ts";
import { writeAudit } from "./audit_service.ts";
import * as credRepo from "./credentials_repository.ts";
import { lockDevice, lockDevices } from "./devices_repository.ts";
import * as reqRepo from "./download_requests_repository.ts";
import type { NfcFiles } from "./nfc_files.ts";
import type { Principal } from "./principals.ts";
import { hitRateWindow } from "./rate_limit.ts";
import { toDownloadRequest } from "./views.ts";

/** How long an approved download request stays usable (SPEC 8 leaves it open). */
export const APPROVAL_WINDOW_MS = 15 * 60 * 1000;
/**
 * Files in one ZIP. Each file is derived and signed, and the ZIP is built in memory under the
 * lock of its credentials, so a ZIP is bounded; a larger batch is fetched in pages.
 */
export const MAX_ZIP_FILES = 10_000;

/** Which files of a batch a ZIP holds: `offset` (default 0) and `limit`. */
export interface ZipPage {
  offset?: number;
  limit?: number;
}

/** File downloads, the batch ZIP and repeat-download requests. */
export class DownloadsService {
  /** MAX_ZIP_FILES; a field so that a test can lower it instead of building 10k devices. */
  maxZipFiles = MAX_ZIP_FILES;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly access: FactoryAccess,
    private readonly files: NfcFiles,
  ) {}

  /**
   * SPEC 8: the per-principal download limit, counted in the database (it holds across
   * processes); 429 with Retry-After when exceeded.
   */
  private async rateLimit(p: Principal, action: string) {
    const limit = this.config.factoryDownloadsPerMinute;
    const wait = await hitRateWindow(this.db, `download:${p.id}`, limit, 60);
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
    const c = await this.access.credential(p, credentialId, "nfc_file.download");
    const outcome = await this.db.transaction().execute(async (trx) => {
      // Device, then credential: the order of revoke-and-reissue, so the two cannot deadlock.
      await lockDevice(trx, c.device_id);
      const locked = await credRepo.lockCredential(trx, credentialId);
      if (!locked || locked.status === "revoked") return { kind: "gone" as const };
      let via = "first";
      let requestId: string | undefined;
      if (locked.download_count > 0) {
        if (repeatsDownloadsDirectly(p)) via = "supervisor";
        else {
          const approval = await reqRepo.lockUsableApproval(trx, credentialId, p.id, new Date());
          if (!approval) return { kind: "denied" as const };
          await reqRepo.markApprovalUsed(trx, approval.id);
          via = "approval";
          requestId = approval.id;
        }
      }
      await credRepo.markDownloaded(trx, credentialId, locked.device_id);
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
        file: await this.files.build(locked),
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

  /**
   * POST /nfc-files:download-zip (supervisor): the valid files of a batch whose devices the
   * principal may reach (never another SKU's, issue 16), at most `maxZipFiles` per ZIP. Without
   * a `limit`, a batch with more files than that is 413; with one, the page it names.
   */
  async downloadZip(p: Principal, batchId: string, page: ZipPage = {}) {
    await this.rateLimit(p, "nfc_file.download_zip");
    const batch = await this.access.batch(p, batchId, "write", "nfc_file.download_zip");
    const offset = page.offset ?? 0;
    if (page.limit !== undefined && (page.limit < 1 || page.limit > this.maxZipFiles)) {
      throw badRequest(`limit must be between 1 and ${this.maxZipFiles}`);
    }
    if (page.limit === undefined) {
      const total = await credRepo.countBatchCredentials(this.db, p, batchId);
      if (total - offset > this.maxZipFiles) {
        throw new AppError(
          "payload_too_large",
          `Batch ${batch.order_no} has ${total} NFC files; a ZIP holds at most ${this.maxZipFiles}, choose them with offset and limit`,
        );
      }
    }
    const limit = page.limit ?? this.maxZipFiles;
    const files = await this.db.transaction().execute(async (trx) => {
      const devices = await credRepo.batchCredentialDevices(trx, p, batchId, { offset, limit });
      // Devices, then their credentials: the order of revoke-and-reissue (no deadlock); a
      // credential reissued meanwhile is picked up as the device's current one.
      if (devices.length) await lockDevices(trx, devices);
      const credentials = devices.length ? await credRepo.lockLiveCredentialsOf(trx, devices) : [];
      if (!credentials.length) throw notFound(`Batch ${batch.order_no} has no NFC files`);
      const out: Record<string, Uint8Array> = {};
      const encoder = new TextEncoder();
      await credRepo.markManyDownloaded(trx, credentials);
      const built = await Promise.all(credentials.map((c) => this.files.build(c)));
      credentials.forEach((c, i) => {
        out[`${c.serial ?? c.hw_id}.nfc.json`] = encoder.encode(JSON.stringify(built[i], null, 2));
      });
      // `skus` lets the audit log hide the ZIP row from principals scoped to fewer SKUs.
      const skus = [...new Set(credentials.map((c) => c.sku ?? batch.sku))].sort();
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
        {
          action: "nfc_file.download_zip",
          batchId,
          detail: { files: credentials.length, offset, skus },
        },
      );
      return out;
    });
    return { zip: zipSync(files, { level: 6 }), fileName: `${batch.order_no}.nfc.zip` };
  }

  // ---- download requests (SPEC 3.5b) -------------------------------------------------------

  /** POST /nfc-files/{id}/download-requests: 201 pending; one pending per credential. */
  async createRequest(p: Principal, credentialId: string) {
    const c = await this.access.credential(p, credentialId, "download_request.create");
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await reqRepo.insertDownloadRequest(trx, {
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
    const action = `download_request.${decision}`;
    // Scope first (a request's device and batch never change), then the status under the lock.
    await this.access.downloadRequest(p, requestId, action);
    const row = await this.db.transaction().execute(async (trx) => {
      const r = await reqRepo.lockDownloadRequest(trx, requestId);
      if (!r) throw notFound(`Download request ${requestId} not found`);
      if (r.status !== "pending") throw conflict(`Download request is already ${r.status}`);
      const now = new Date();
      const row = await reqRepo.decideDownloadRequest(
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
      return row;
    });
    return toDownloadRequest(row);
  }

  /** Requests whose device is in scope; an operator sees only their own. */
  async listRequests(
    p: Principal,
    f: { status?: string; batchId?: string; limit: number; offset: number },
  ) {
    const { rows, total } = await reqRepo.listDownloadRequests(this.db, p, {
      ...f,
      requestedBy: requestsListedFor(p),
    });
    return { items: rows.map(toDownloadRequest), total, limit: f.limit, offset: f.offset };
  }
}
