/**
 * Who may do what on the factory console (SPEC 4.8, 5.7): the one place for the role table, the
 * bearer check and the scope checks of single resources. It denies by default: an operation not
 * in the table has no roles, a target the scope rule does not clearly admit is refused, and every
 * refusal is written to the audit log. Lists and batch-wide actions apply the same rule in SQL
 * (`scope.ts`), one device at a time.
 * Scope rule: an out-of-scope read answers 404 (no existence oracle), an out-of-scope write 403.
 */
import { forbidden, notFound, unauthorized } from "../../errors.ts";
import type { Db } from "../../schema.ts";
import { writeAudit } from "./audit_service.ts";
import { findBatch } from "./batches_repository.ts";
import { findCredential } from "./credentials_repository.ts";
import { findDeviceView } from "./devices_repository.ts";
import { findDownloadRequest } from "./download_requests_repository.ts";
import { findPrincipal, type Principal, type Role } from "./principals.ts";
import { FixedWindowLimiter } from "./rate_limit.ts";
import { batchInScope, type BatchRef, deviceInScope } from "./scope.ts";

/** Every role. */
export const ANY: readonly Role[] = ["operator", "supervisor", "auditor"];
/** SPEC 4.8: "write" means operator or supervisor. */
const WRITE: readonly Role[] = ["operator", "supervisor"];
const SUPERVISOR: readonly Role[] = ["supervisor"];

/**
 * SPEC 4.8's role column, per operation, with the audit action its refusals are written under.
 */
export const OPERATIONS = {
  whoami: { roles: ANY, action: "whoami" },
  listManifestKeys: { roles: ANY, action: "manifest_key.list" },
  listBatches: { roles: ANY, action: "batch.list" },
  createBatch: { roles: SUPERVISOR, action: "batch.create" },
  getBatch: { roles: ANY, action: "batch.read" },
  getBatchStats: { roles: ANY, action: "stats.read" },
  getStats: { roles: ANY, action: "stats.read" },
  listDevices: { roles: ANY, action: "device.list" },
  getDevice: { roles: ANY, action: "device.read" },
  registerDevice: { roles: WRITE, action: "device.register" },
  importDevices: { roles: SUPERVISOR, action: "device.import" },
  generateNfcFile: { roles: WRITE, action: "nfc_file.generate" },
  generateBatchNfcFiles: { roles: SUPERVISOR, action: "nfc_file.generate" },
  revokeAndReissue: { roles: SUPERVISOR, action: "nfc_credential.revoke" },
  downloadNfcFile: { roles: WRITE, action: "nfc_file.download" },
  downloadZip: { roles: SUPERVISOR, action: "nfc_file.download_zip" },
  createDownloadRequest: { roles: WRITE, action: "download_request.create" },
  listDownloadRequests: { roles: ANY, action: "download_request.list" },
  approveDownloadRequest: { roles: SUPERVISOR, action: "download_request.approve" },
  rejectDownloadRequest: { roles: SUPERVISOR, action: "download_request.reject" },
  listAuditLogs: { roles: ANY, action: "audit.list" },
  uploadFirmware: { roles: SUPERVISOR, action: "firmware.upload" },
  listFirmware: { roles: ANY, action: "firmware.list" },
  createRollout: { roles: SUPERVISOR, action: "firmware_rollout.create" },
  listRollouts: { roles: ANY, action: "firmware_rollout.list" },
  pauseRollout: { roles: SUPERVISOR, action: "firmware_rollout.pause" },
  resumeRollout: { roles: SUPERVISOR, action: "firmware_rollout.resume" },
  getRolloutStatus: { roles: ANY, action: "firmware_rollout.read" },
} as const satisfies Record<string, { roles: readonly Role[]; action: string }>;

/** The name of a factory operation (a key of OPERATIONS). */
export type Operation = keyof typeof OPERATIONS;
/** A read (out of scope: 404) or a write (out of scope: 403). */
export type Mode = "read" | "write";

/** What a scope check is about: a batch, or one device (with its own SKU) of a batch. */
export interface Target {
  batch: BatchRef;
  device?: { id?: string; sku: string | null };
}

/**
 * Refusals of unknown or missing bearers written per minute. Anyone who reaches the factory
 * ingress can send them, so without a cap each request would leave a row the service cannot give
 * back; the next written row counts the ones left out (`detail.suppressed`).
 */
export const ANONYMOUS_AUDIT_PER_MINUTE = 60;

/** The scope view of a batch row. */
export function batchRef(row: { id: string; order_no: string; sku: string }): BatchRef {
  return { id: row.id, orderNo: row.order_no, sku: row.sku };
}

/** True when the principal may reach the target (pure; no audit). */
export function allows(p: Principal, target: Target): boolean {
  return target.device
    ? deviceInScope(p, target.batch, target.device.sku)
    : batchInScope(p, target.batch);
}

/** True when the principal's role may run the operation; an unknown one runs for nobody. */
export function mayRun(p: Principal, operation: Operation): boolean {
  const roles: readonly Role[] = OPERATIONS[operation]?.roles ?? [];
  return roles.includes(p.role);
}

/** SPEC 4.8: a supervisor repeats a download directly; others need an approved request. */
export function repeatsDownloadsDirectly(p: Principal): boolean {
  return p.role === "supervisor";
}

/** Download requests an operator may list are their own (the only ones they can use). */
export function requestsListedFor(p: Principal): string | undefined {
  return p.role === "operator" ? p.id : undefined;
}

/** Which credential the factory console expects (issue 34: a bare "Unauthorized" said nothing). */
const EXPECTED =
  "Expected a factory principal's token (FACTORY_PRINCIPALS) in Authorization: Bearer";

/** The checks that need the database (rows to look up, refusals to audit). */
export class FactoryAccess {
  private readonly anonymous = new FixedWindowLimiter(ANONYMOUS_AUDIT_PER_MINUTE, 60_000);
  private suppressed = 0;

  constructor(private readonly db: Db, private readonly principals: readonly Principal[]) {}

  /**
   * The principal behind a bearer that may run `operation`. A missing or unknown bearer is 401,
   * a known principal of another role 403; both are audited.
   */
  async authenticate(bearer: string | null, operation: Operation): Promise<Principal> {
    const { action } = OPERATIONS[operation];
    const principal = bearer ? findPrincipal(this.principals, bearer) : null;
    if (!principal) {
      await this.auditAnonymous(action, bearer ? "unknown bearer" : "missing bearer");
      throw unauthorized(`${bearer ? "Unauthorized" : "Missing bearer token"}: ${EXPECTED}`);
    }
    if (!mayRun(principal, operation)) {
      await writeAudit(this.db, principal, {
        action,
        result: "denied",
        detail: { reason: `role ${principal.role} is not allowed` },
      });
      throw forbidden(`Role ${principal.role} cannot ${action.replaceAll("_", " ")}`);
    }
    return principal;
  }

  private async auditAnonymous(action: string, reason: string) {
    if (this.anonymous.hit("anonymous") !== null) {
      this.suppressed++;
      return;
    }
    const suppressed = this.suppressed;
    this.suppressed = 0;
    await writeAudit(this.db, null, {
      action,
      result: "denied",
      detail: { reason, ...(suppressed ? { suppressed } : {}) },
    });
  }

  /** Passes when the principal may reach the target; otherwise audits and refuses. */
  async require(p: Principal, mode: Mode, action: string, target: Target): Promise<void> {
    if (allows(p, target)) return;
    await writeAudit(this.db, p, {
      action,
      result: "denied",
      batchId: target.batch.id,
      deviceId: target.device?.id,
      detail: { reason: "out of scope" },
    });
    throw mode === "read" ? notFound() : forbidden("Outside your batch or SKU scope");
  }

  /** A batch the principal may read or write: 400 malformed id, 404 missing, else `require`. */
  async batch(p: Principal, batchId: string, mode: Mode, action: string) {
    const batch = await findBatch(this.db, batchId);
    if (!batch) throw notFound(`Batch ${batchId} not found`);
    await this.require(p, mode, action, { batch: batchRef(batch) });
    return batch;
  }

  /** A new batch: its order number and SKU must be in scope (403, audited). */
  async newBatch(p: Principal, batch: BatchRef, action: string): Promise<void> {
    if (allows(p, { batch })) return;
    await writeAudit(this.db, p, {
      action,
      result: "denied",
      detail: { orderNo: batch.orderNo, sku: batch.sku, reason: "out of scope" },
    });
    throw forbidden("Order number or SKU is outside your scope");
  }

  /** A device row the principal may read or write (its batch and its own SKU in scope). */
  async device(p: Principal, deviceId: string, mode: Mode, action: string) {
    const row = await findDeviceView(this.db, deviceId);
    if (!row) throw notFound(`Device ${deviceId} not found`);
    await this.require(p, mode, action, {
      batch: { id: row.batch_id!, orderNo: row.order_no, sku: row.batch_sku },
      device: { id: row.id, sku: row.sku },
    });
    return row;
  }

  /**
   * A live credential the principal may write to: 400 malformed id, 404 missing or revoked (its
   * file is gone, SPEC 3.4b), 403 out of scope (its device's).
   */
  async credential(p: Principal, credentialId: string, action: string) {
    const c = await findCredential(this.db, credentialId);
    if (!c || c.status === "revoked") throw notFound(`Credential ${credentialId} not found`);
    await this.require(p, "write", action, {
      batch: { id: c.batch_id!, orderNo: c.order_no, sku: c.batch_sku },
      device: { id: c.device_id, sku: c.sku },
    });
    return c;
  }

  /** A download request the principal may decide: 400, 404, 403 out of scope (its device's). */
  async downloadRequest(p: Principal, requestId: string, action: string) {
    const r = await findDownloadRequest(this.db, requestId);
    if (!r) throw notFound(`Download request ${requestId} not found`);
    await this.require(p, "write", action, {
      batch: { id: r.batch_id!, orderNo: r.order_no, sku: r.batch_sku },
      device: { id: r.device_id, sku: r.sku },
    });
    return r;
  }
}
