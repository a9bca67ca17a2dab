/**
 * The device registry (SPEC 4.8): single registration with Idempotency-Key, the CSV import, and
 * the device reads. The service assigns hwId (32 hex), thingName and the claim code; the caller
 * never does. A device's own SKU (an override of the batch's) must be in scope, not only its
 * batch (issue 16).
 */
import type { Config } from "../../config.ts";
import { AppError, badRequest, conflict } from "../../errors.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { randomString } from "../../infra/lib/crypto.ts";
import type { Db, Trx } from "../../schema.ts";
import { newClaimCode } from "../devices/claim_code.ts";
import { allows, batchRef, type FactoryAccess } from "./access.ts";
import { auditRow, writeAudit } from "./audit_service.ts";
import { insertAudit } from "./audit_repository.ts";
import { type ImportRow, parseImport } from "./csv.ts";
import { type DeviceFilters, findDeviceView, listDeviceViews } from "./devices_repository.ts";
import { fingerprint } from "../../infra/lib/canonical_json.ts";
import type { Principal } from "./principals.ts";
import * as repo from "./registration_repository.ts";
import { toDeviceView, toRegistered } from "./views.ts";
import { IDEMPOTENCY_KEY } from "../../infra/lib/params.ts";

const IMPORT_CHUNK = 500;

/** The body of POST /devices. */
export interface RegisterInput {
  batchId: string;
  serial?: string;
  sku?: string;
  hwRevision?: string;
}

type BatchRow = Awaited<ReturnType<FactoryAccess["batch"]>>;

/** Registering devices (single and CSV) and reading them. */
export class RegistrationService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly access: FactoryAccess,
  ) {}

  /**
   * Registers one device (SPEC 4.8): the service assigns hwId and thingName. With an
   * Idempotency-Key, a replay of the same body answers 200 with the same device and a different
   * body under the same key 409; without one, a taken (batch, serial) is 409.
   */
  async register(p: Principal, input: RegisterInput, idempotencyKey?: string) {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw badRequest("Idempotency-Key must be 8-128 printable ASCII characters");
    }
    const action = "device.register";
    const batch = await this.access.batch(p, input.batchId, "write", action);
    // Issue 16: the batch's SKU and the device's (the override) must both be in scope.
    await this.access.require(p, "write", action, {
      batch: batchRef(batch),
      device: { sku: input.sku ?? batch.sku },
    });
    if (batch.status !== "open") throw conflict(`Batch ${batch.order_no} is closed`);
    const print = fingerprint(input);
    const replay = async (trx: Trx) => {
      if (idempotencyKey === undefined) return undefined;
      const seen = await repo.findIdempotencyKey(trx, p.id, idempotencyKey);
      if (!seen) return undefined;
      if (seen.fingerprint !== print) {
        throw conflict("Idempotency-Key was already used with a different request");
      }
      return { created: false, deviceId: seen.device_id };
    };
    const attempt = () =>
      this.db.transaction().execute(async (trx) => {
        const earlier = await replay(trx);
        if (earlier) return earlier;
        const [device] = await this.insertDevices(trx, p, batch, [{
          row: 0,
          ...input,
          serial: input.serial ?? "",
        }]);
        if (!device) {
          // A concurrent request with the same key may have taken the serial and committed
          // while this insert waited on it: a fresh statement sees its key row.
          const concurrent = await replay(trx);
          if (concurrent) return concurrent;
          throw conflict(`Serial ${input.serial} already exists in this batch`);
        }
        if (idempotencyKey !== undefined) {
          await repo.insertIdempotencyKey(trx, {
            principal_id: p.id,
            key: idempotencyKey,
            fingerprint: print,
            device_id: device.id,
          });
        }
        return { created: true, deviceId: device.id };
      });
    let outcome;
    try {
      outcome = await attempt();
    } catch (error) {
      // A concurrent request with the same key won the insert: answer as its replay.
      if (!isUniqueViolation(error, "factory_idempotency_keys_pkey")) throw error;
      outcome = await attempt();
    }
    const view = toDeviceView(
      this.config.nfc.uriScheme,
      (await findDeviceView(this.db, outcome.deviceId))!,
    );
    return { created: outcome.created, device: toRegistered(view) };
  }

  /** Inserts devices with their audit rows; returns only the ones newly created. */
  private async insertDevices(trx: Trx, p: Principal, batch: BatchRow, rows: ImportRow[]) {
    const fresh = rows.map((r) => {
      const hwId = randomString(32, "0123456789abcdef");
      return {
        id: uuidv7(),
        hw_id: hwId,
        thing_name: `dds-${hwId}`,
        // Without a serial the device gets one from its hardware id.
        serial: r.serial || hwId.slice(0, 12).toUpperCase(),
        batch_id: batch.id,
        sku: r.sku ?? batch.sku,
        hw_revision: r.hwRevision ?? batch.hw_revision,
        claim_code: newClaimCode(),
      };
    });
    const inserted = await repo.insertDevices(trx, fresh);
    const ids = new Set(inserted.map((d) => d.id));
    const created = fresh.filter((d) => ids.has(d.id));
    await insertAudit(
      trx,
      created.map((d) =>
        auditRow(p, {
          action: "device.register",
          batchId: batch.id,
          deviceId: d.id,
          detail: { serial: d.serial, hwId: d.hw_id },
        })
      ),
    );
    return created;
  }

  /**
   * The batch of a CSV import, checked before the upload is read (checks before costs): 400,
   * 404, 403 out of scope, 409 closed.
   */
  async importBatch(p: Principal, batchId: string): Promise<BatchRow> {
    const batch = await this.access.batch(p, batchId, "write", "device.import");
    if (batch.status !== "open") throw conflict(`Batch ${batch.order_no} is closed`);
    return batch;
  }

  /**
   * CSV import (SPEC 4.8) into a batch from `importBatch`: good rows land, bad rows are
   * reported; a row whose SKU is out of scope is a row error; a serial already registered with
   * the same SKU and revision counts as idempotent, with different ones as an error.
   */
  async importCsv(p: Principal, batch: BatchRow, text: string) {
    const parsed = parseImport(text);
    if (!parsed.ok) {
      throw parsed.tooLarge
        ? new AppError("payload_too_large", parsed.error)
        : badRequest(parsed.error);
    }
    const errors = [...parsed.errors];
    let ok = 0;
    let idempotent = 0;
    const seen = new Set<string>();
    const rows = parsed.rows.filter((r) => {
      const sku = r.sku ?? batch.sku;
      if (seen.has(r.serial)) {
        errors.push({ row: r.row, serial: r.serial, error: "serial repeats an earlier row" });
        return false;
      }
      seen.add(r.serial);
      if (!allows(p, { batch: batchRef(batch), device: { sku } })) {
        errors.push({ row: r.row, serial: r.serial, error: `sku ${sku} is outside your scope` });
        return false;
      }
      return true;
    });
    for (let i = 0; i < rows.length; i += IMPORT_CHUNK) {
      const chunk = rows.slice(i, i + IMPORT_CHUNK);
      await this.db.transaction().execute(async (trx) => {
        const created = await this.insertDevices(trx, p, batch, chunk);
        ok += created.length;
        const createdSerials = new Set(created.map((d) => d.serial));
        const clashes = chunk.filter((r) => !createdSerials.has(r.serial));
        const existing = new Map(
          (await repo.findDevicesBySerial(trx, batch.id, clashes.map((r) => r.serial)))
            .map((d) => [d.serial, d]),
        );
        for (const r of clashes) {
          const d = existing.get(r.serial);
          const same = d && d.sku === (r.sku ?? batch.sku) &&
            d.hw_revision === (r.hwRevision ?? batch.hw_revision);
          if (same) idempotent++;
          else {
            errors.push({
              row: r.row,
              serial: r.serial,
              error: "serial already registered with a different sku or hwRevision",
            });
          }
        }
      });
    }
    errors.sort((a, b) => a.row - b.row);
    // `skus` lets the audit log hide this row from principals scoped to fewer SKUs.
    const skus = [...new Set(rows.map((r) => r.sku ?? batch.sku))].sort();
    await writeAudit(this.db, p, {
      action: "device.import",
      batchId: batch.id,
      detail: { ok, idempotent, errors: errors.length, skus },
    });
    return { ok, idempotent, errors };
  }

  /** GET /devices/{id}: the DeviceView, proof masked; 404 missing or out of scope. */
  async get(p: Principal, deviceId: string) {
    const row = await this.access.device(p, deviceId, "read", "device.read");
    return toDeviceView(this.config.nfc.uriScheme, row);
  }

  /** GET /devices: the devices in scope (their own SKU included), filtered and paged. */
  async list(p: Principal, f: DeviceFilters) {
    const { rows, total } = await listDeviceViews(this.db, p, f);
    const scheme = this.config.nfc.uriScheme;
    return {
      items: rows.map((r) => toDeviceView(scheme, r)),
      total,
      limit: f.limit,
      offset: f.offset,
    };
  }
}
