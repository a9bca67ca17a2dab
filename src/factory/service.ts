/**
 * Factory console rules (SPEC 2.14, 4.8): batches, device registration and import, scoped reads,
 * statistics and the audit log, and the one authorization function every factory service uses.
 * Registration, credentials and downloads live in their own services, reached through this one.
 * Scope rule: an out-of-scope read answers 404 (no existence oracle), an out-of-scope write 403.
 */
import type { Config } from "../config.ts";
import { badRequest, conflict, forbidden, notFound } from "../errors.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { isUuid, uuidv7 } from "../lib/ids.ts";
import type { Db } from "../schema.ts";
import { writeAudit } from "./audit.ts";
import { CredentialsService } from "./credentials_service.ts";
import { DownloadsService } from "./downloads_service.ts";
import type { ManifestKeyRecord, NfcKeyring } from "./keys.ts";
import { inScope, type Principal } from "./principals.ts";
import { RegistrationService } from "./registration_service.ts";
import * as repo from "./repository.ts";
import { type BatchView, toAuditLog, toBatch, toDeviceView } from "./views.ts";

export class FactoryService {
  readonly registration: RegistrationService;
  readonly credentials: CredentialsService;
  readonly downloads: DownloadsService;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    keys: { nfc: NfcKeyring; manifestKeys: ManifestKeyRecord[] },
  ) {
    this.registration = new RegistrationService(db, config, this);
    this.credentials = new CredentialsService(db, config, keys, this);
    this.downloads = new DownloadsService(db, config, this.credentials, this);
  }

  /**
   * The one authorization function for batch-scoped resources: in scope passes; otherwise a
   * read is 404 and a write 403, and the refusal is audited.
   */
  async authorize(
    p: Principal,
    target: { batchId: string; orderNo: string; sku: string | null; deviceId?: string },
    mode: "read" | "write",
    action: string,
  ): Promise<void> {
    if (inScope(p, { id: target.batchId, orderNo: target.orderNo }, target.sku)) return;
    await writeAudit(this.db, p, {
      action,
      result: "denied",
      batchId: target.batchId,
      deviceId: target.deviceId,
      detail: { reason: "out of scope" },
    });
    throw mode === "read" ? notFound() : forbidden("Outside your batch or SKU scope");
  }

  // ---- batches -----------------------------------------------------------------------------

  async createBatch(
    p: Principal,
    input: {
      orderNo: string;
      sku: string;
      hwRevision?: string;
      plannedQuantity?: number;
      factoryId?: string;
    },
  ): Promise<BatchView> {
    const id = uuidv7();
    if (!inScope(p, { id, orderNo: input.orderNo }, input.sku)) {
      await writeAudit(this.db, p, {
        action: "batch.create",
        result: "denied",
        detail: { orderNo: input.orderNo, sku: input.sku, reason: "out of scope" },
      });
      throw forbidden("Order number or SKU is outside your scope");
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await repo.insertBatch(trx, {
          id,
          order_no: input.orderNo,
          sku: input.sku,
          hw_revision: input.hwRevision ?? null,
          planned_quantity: input.plannedQuantity ?? 0,
          factory_id: input.factoryId ?? p.factoryId,
          created_by: p.id,
        });
        await writeAudit(trx, p, {
          action: "batch.create",
          batchId: id,
          detail: { orderNo: input.orderNo, sku: input.sku },
        });
        return toBatch(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`Order number ${input.orderNo} already exists`);
      throw error;
    }
  }

  /** A batch the principal may see; 400 for a malformed id, 404 when missing or out of scope. */
  async readableBatch(p: Principal, batchId: string, action = "batch.read") {
    const batch = await this.batchRow(batchId);
    await this.authorize(p, { batchId, orderNo: batch.order_no, sku: batch.sku }, "read", action);
    return batch;
  }

  /** A batch the principal may write to; 404 when missing, 403 when out of scope. */
  async writableBatch(p: Principal, batchId: string, action: string, sku?: string | null) {
    const batch = await this.batchRow(batchId);
    await this.authorize(
      p,
      { batchId, orderNo: batch.order_no, sku: sku ?? batch.sku },
      "write",
      action,
    );
    return batch;
  }

  private async batchRow(batchId: string) {
    if (!isUuid(batchId)) throw badRequest("batchId must be a UUID");
    const batch = await repo.findBatch(this.db, batchId);
    if (!batch) throw notFound(`Batch ${batchId} not found`);
    return batch;
  }

  async getBatch(p: Principal, batchId: string) {
    return toBatch(await this.readableBatch(p, batchId));
  }

  async listBatches(p: Principal, q: { status?: string; limit: number; offset: number }) {
    const { rows, total } = await repo.listBatches(this.db, p, q);
    return { items: rows.map(toBatch), total, limit: q.limit, offset: q.offset };
  }

  async batchStats(p: Principal, batchId: string) {
    const batch = await this.readableBatch(p, batchId, "stats.read");
    const { counts } = await repo.counts(this.db, p, batchId);
    return { batch: toBatch(batch), counts };
  }

  /** Global statistics over the principal's scope. */
  async globalStats(p: Principal) {
    return await repo.counts(this.db, p);
  }

  // ---- devices -----------------------------------------------------------------------------

  async getDevice(p: Principal, deviceId: string) {
    return toDeviceView(this.config.nfc.uriScheme, await this.readableDevice(p, deviceId));
  }

  /** A device row the principal may see (404 otherwise). */
  async readableDevice(p: Principal, deviceId: string, action = "device.read") {
    const row = await this.deviceRow(deviceId);
    await this.authorize(
      p,
      { batchId: row.batch_id!, orderNo: row.order_no, sku: row.sku, deviceId },
      "read",
      action,
    );
    return row;
  }

  /** A device row the principal may change (404 missing, 403 out of scope). */
  async writableDevice(p: Principal, deviceId: string, action: string) {
    const row = await this.deviceRow(deviceId);
    await this.authorize(
      p,
      { batchId: row.batch_id!, orderNo: row.order_no, sku: row.sku, deviceId },
      "write",
      action,
    );
    return row;
  }

  private async deviceRow(deviceId: string) {
    if (!isUuid(deviceId)) throw badRequest("deviceId must be a UUID");
    const row = await repo.findDeviceView(this.db, deviceId);
    if (!row) throw notFound(`Device ${deviceId} not found`);
    return row;
  }

  async listDevices(p: Principal, f: repo.DeviceFilters) {
    const { rows, total } = await repo.listDeviceViews(this.db, p, f);
    const scheme = this.config.nfc.uriScheme;
    return {
      items: rows.map((r) => toDeviceView(scheme, r)),
      total,
      limit: f.limit,
      offset: f.offset,
    };
  }

  // ---- audit -------------------------------------------------------------------------------

  async listAudit(p: Principal, f: repo.AuditFilters) {
    const { rows, total } = await repo.listAudit(this.db, p, f);
    return { items: rows.map(toAuditLog), total, limit: f.limit, offset: f.offset };
  }
}
