/** Batches and their statistics (SPEC 2.14, 4.8). */
import { conflict } from "../../errors.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import type { Db } from "../../schema.ts";
import type { FactoryAccess } from "./access.ts";
import { writeAudit } from "./audit_service.ts";
import { insertBatch, listBatches } from "./batches_repository.ts";
import type { Principal } from "./principals.ts";
import { counts } from "./stats_repository.ts";
import { type BatchView, toBatch } from "./views.ts";

/** The body of POST /batches. */
export interface NewBatch {
  orderNo: string;
  sku: string;
  hwRevision?: string;
  plannedQuantity?: number;
  factoryId?: string;
}

/** Batches: create, read, list, statistics. */
export class BatchesService {
  constructor(private readonly db: Db, private readonly access: FactoryAccess) {}

  /** POST /batches: a scoped supervisor creates only batches inside its scope. */
  async create(p: Principal, input: NewBatch): Promise<BatchView> {
    const id = uuidv7();
    await this.access.newBatch(p, { id, orderNo: input.orderNo, sku: input.sku }, "batch.create");
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await insertBatch(trx, {
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

  /** GET /batches/{id}: 404 when missing or out of scope. */
  async get(p: Principal, batchId: string): Promise<BatchView> {
    return toBatch(await this.access.batch(p, batchId, "read", "batch.read"));
  }

  /** GET /batches: the batches in scope. */
  async list(p: Principal, q: { status?: string; limit: number; offset: number }) {
    const { rows, total } = await listBatches(this.db, p, q);
    return { items: rows.map(toBatch), total, limit: q.limit, offset: q.offset };
  }

  /** Batch statistics: counts over the devices of the batch the principal may see. */
  async stats(p: Principal, batchId: string) {
    const batch = await this.access.batch(p, batchId, "read", "stats.read");
    const { counts: c } = await counts(this.db, p, batchId);
    return { batch: toBatch(batch), counts: c };
  }

  /** Global statistics over the principal's scope. */
  async globalStats(p: Principal) {
    return await counts(this.db, p);
  }
}
