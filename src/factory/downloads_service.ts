/**
 * Downloads and download requests (SPEC 3.5b, 4.8, 8): first download direct, repeat downloads
 * by supervisors or through one approved request, a per-principal rate limit, the batch ZIP.
 */
import { zipSync } from "fflate";
import type { Config } from "../config.ts";
import { AppError, badRequest, conflict, forbidden, notFound } from "../errors.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { isUuid, uuidv7 } from "../lib/ids.ts";
import type { Db } from "../schema.ts";
import { writeAudit } from "./audit.ts";
import type { CredentialsService } from "./credentials_service.ts";
import { inScope, type Principal } from "./principals.ts";
import { FixedWindowLimiter } from "./rate_limit.ts";
import * as credRepo from "./credentials_repository.ts";
import type { FactoryService } from "./service.ts";
import { toDownloadRequest } from "./views.ts";

/** How long an approved download request stays usable (SPEC 8 leaves it open). */
export const APPROVAL_WINDOW_MS = 15 * 60 * 1000;

export class DownloadsService {
  private readonly limiter: FixedWindowLimiter;

  constructor(
    private readonly db: Db,
    config: Config,
    private readonly credentials: CredentialsService,
    private readonly factory: FactoryService,
  ) {
    this.limiter = new FixedWindowLimiter(config.factoryDownloadsPerMinute, 60_000);
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
    const c = await this.writableCredential(p, credentialId, "nfc_file.download");
    const outcome = await this.db.transaction().execute(async (trx) => {
      const locked = await credRepo.lockCredential(trx, credentialId);
      if (!locked || locked.status === "revoked") return { kind: "gone" as const };
      let via = "first";
      let requestId: string | undefined;
      if (locked.download_count > 0) {
        if (p.role === "supervisor") via = "supervisor";
        else {
          const approval = await credRepo.lockUsableApproval(trx, credentialId, p.id, new Date());
          if (!approval) return { kind: "denied" as const };
          await credRepo.markApprovalUsed(trx, approval.id);
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
        file: await this.credentials.buildFile(locked),
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
      const credentials = await credRepo.lockBatchCredentials(trx, batchId);
      if (!credentials.length) throw notFound(`Batch ${batch.order_no} has no NFC files`);
      const out: Record<string, Uint8Array> = {};
      const encoder = new TextEncoder();
      await credRepo.markManyDownloaded(trx, credentials);
      const built = await Promise.all(credentials.map((c) => this.credentials.buildFile(c)));
      credentials.forEach((c, i) => {
        out[`${c.serial ?? c.hw_id}.nfc.json`] = encoder.encode(JSON.stringify(built[i], null, 2));
      });
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

  /**
   * A live (not revoked) credential the principal may write to; 400 for a malformed id, 404 when
   * missing or revoked (its file is gone, SPEC 3.4b), 403 out of role or scope (audited).
   */
  private async writableCredential(p: Principal, credentialId: string, action: string) {
    if (!isUuid(credentialId)) throw badRequest("credentialId must be a UUID");
    const c = await credRepo.findCredential(this.db, credentialId);
    if (!c || c.status === "revoked") throw notFound(`Credential ${credentialId} not found`);
    await this.factory.authorize(
      p,
      { batchId: c.batch_id!, orderNo: c.order_no, sku: c.sku, deviceId: c.device_id },
      "write",
      action,
    );
    return c;
  }

  // ---- download requests (SPEC 3.5b) -------------------------------------------------------

  async createRequest(p: Principal, credentialId: string) {
    const c = await this.writableCredential(p, credentialId, "download_request.create");
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await credRepo.insertDownloadRequest(trx, {
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
      const r = await credRepo.lockDownloadRequest(trx, requestId);
      if (!r) return { kind: "missing" as const };
      if (!inScope(p, { id: r.batch_id!, orderNo: r.order_no }, r.sku)) {
        return { kind: "scope" as const, r };
      }
      if (r.status !== "pending") throw conflict(`Download request is already ${r.status}`);
      const now = new Date();
      const row = await credRepo.decideDownloadRequest(
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
    const { rows, total } = await credRepo.listDownloadRequests(this.db, p, {
      ...f,
      requestedBy: p.role === "operator" ? p.id : undefined,
    });
    return { items: rows.map(toDownloadRequest), total, limit: f.limit, offset: f.offset };
  }
}
