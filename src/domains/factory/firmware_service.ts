/**
 * The firmware registry of the factory console (issue 24): a supervisor uploads a build (its
 * file into object storage) and assigns it to a batch, a SKU or a model, pauses and resumes the
 * rollout; every role reads. Roles are `access.ts`'s table; scope follows the factory rule (an
 * out-of-scope read 404, write 403, both audited) with what a target reaches: a batch target is
 * that batch, a SKU target every batch of the SKU (so it needs every batch in scope), a model
 * target any device at all (so it needs an unrestricted principal).
 */
import { badRequest, conflict, forbidden, notFound } from "../../errors.ts";
import { isUniqueViolation } from "../../infra/db/errors.ts";
import { isUuid, uuidv7 } from "../../infra/lib/ids.ts";
import type { Db } from "../../schema.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import type { FactoryAccess } from "./access.ts";
import { writeAudit } from "./audit_service.ts";
import * as repo from "./firmware_repository.ts";
import { type RolloutStatusView, toBuild, toRollout } from "./firmware_views.ts";
import type { Principal } from "./principals.ts";
import { batchInScope, type Scope, skuInScope, unrestricted, unrestrictedScope } from "./scope.ts";
import { firmwareVersions } from "./stats_repository.ts";

/** The largest firmware file (an ESP32 OTA slot is at most a few MiB). */
export const FIRMWARE_MAX_BYTES = 16 * 1024 * 1024;
/** A version as the firmware reports it in `FW-Version` (e.g. `1.6.2`). */
export const VERSION = /^[0-9A-Za-z][0-9A-Za-z._+-]{0,63}$/;
/** A model or SKU name. */
export const NAME = /^[\x21-\x7e]{1,100}$/;

/** What a supervisor says about a build (the multipart fields). */
export interface NewBuild {
  version: string;
  models: string[];
  skus: string[];
  notes?: string;
}

/** The build a device should run, for the devices' side (no principal: the device asks). */
export interface OfferedBuild {
  id: string;
  version: string;
  objectKey: string;
  sha256: string;
  sizeBytes: number;
}

/** True when a principal may write a rollout of this target (and so read it). */
function targetAllowed(
  p: Scope,
  row: Pick<repo.RolloutJoinRow, "target_kind" | "target"> & {
    batch?: { id: string; orderNo: string; sku: string } | null;
  },
): boolean {
  switch (row.target_kind) {
    case "batch":
      return row.batch ? batchInScope(p, row.batch) : false;
    case "sku":
      return unrestricted(p.batches) && skuInScope(p, row.target);
    default:
      return unrestrictedScope(p);
  }
}

function batchOf(row: repo.RolloutJoinRow) {
  return row.order_no === null
    ? null
    : { id: row.target, orderNo: row.order_no, sku: row.batch_sku ?? "" };
}

/**
 * How long a process trusts its answer to "is any rollout active" before asking again. Its own
 * writes reset it at once; another process's rollout reaches devices within this long.
 */
export const ACTIVE_CHECK_MS = 30_000;

export class FirmwareService {
  /** The last answer to "is any rollout active" and when it was read. */
  private active: { value: boolean; at: number } | null = null;

  constructor(
    private readonly db: Db,
    private readonly store: ObjectStore,
    private readonly access: FactoryAccess,
  ) {}

  /**
   * The checks of an upload that need its fields, before the file is hashed or stored: valid
   * fields, SKUs in scope (models only for an unrestricted SKU scope), a new version.
   */
  async checkUpload(p: Principal, input: NewBuild): Promise<void> {
    if (!VERSION.test(input.version)) {
      throw badRequest("version must be 1-64 of letters, digits, '.', '_', '+', '-'");
    }
    for (const name of [...input.models, ...input.skus]) {
      if (!NAME.test(name)) throw badRequest("models and skus are 1-100 printable characters");
    }
    if (input.models.length + input.skus.length === 0) {
      throw badRequest("A build fits at least one model or SKU");
    }
    if (input.models.length > 50 || input.skus.length > 50) {
      throw badRequest("At most 50 models and 50 SKUs");
    }
    if ((input.notes?.length ?? 0) > 2000) throw badRequest("notes are at most 2000 characters");
    const inScope = input.skus.every((sku) => skuInScope(p, sku)) &&
      (input.models.length === 0 || unrestricted(p.skus));
    if (!inScope) {
      await writeAudit(this.db, p, {
        action: "firmware.upload",
        result: "denied",
        detail: { version: input.version, skus: input.skus, reason: "out of scope" },
      });
      throw forbidden("A SKU or model of the build is outside your scope");
    }
    if (await repo.findBuildByVersion(this.db, input.version)) {
      throw conflict(`Firmware ${input.version} already exists`);
    }
  }

  /** POST /firmware: the file is hashed and stored, the build recorded and audited. */
  async upload(p: Principal, input: NewBuild, file: Uint8Array) {
    await this.checkUpload(p, input);
    if (file.length === 0) throw badRequest("The firmware file is empty");
    const id = uuidv7();
    const digest = await crypto.subtle.digest("SHA-256", file as Uint8Array<ArrayBuffer>);
    const sha256 = new Uint8Array(digest).toHex();
    const objectKey = `firmware/${id}.bin`;
    await this.store.put(objectKey, file, "application/octet-stream");
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await repo.insertBuild(trx, {
          id,
          version: input.version,
          models: input.models,
          skus: input.skus,
          notes: input.notes?.trim() || null,
          object_key: objectKey,
          sha256,
          size_bytes: file.length,
          created_by: p.id,
        });
        await writeAudit(trx, p, {
          action: "firmware.upload",
          detail: { buildId: id, version: input.version, sha256, sizeBytes: file.length },
        });
        return toBuild(row);
      });
    } catch (error) {
      await this.store.delete(objectKey);
      if (isUniqueViolation(error)) throw conflict(`Firmware ${input.version} already exists`);
      throw error;
    }
  }

  /** GET /firmware: builds fitting a SKU of the principal's scope. */
  async list(p: Principal, page: { limit: number; offset: number }) {
    const { rows, total } = await repo.listBuilds(this.db, p, page);
    return { items: rows.map(toBuild), total, limit: page.limit, offset: page.offset };
  }

  /**
   * POST /firmware/{buildId}/rollouts: the build goes to a batch, a SKU or a model (it must fit
   * it: the SKU or model listed by the build; a batch's SKU, or any model). 409 when assigned.
   */
  async assign(p: Principal, buildId: string, target: { kind: string; value: string }) {
    const action = "firmware_rollout.create";
    const build = await repo.findBuild(this.db, buildId);
    if (!build) throw notFound(`Firmware ${buildId} not found`);
    let batchId: string | null = null;
    if (target.kind === "batch") {
      if (!isUuid(target.value)) throw badRequest("A batch target is the batch's id");
      const batch = await this.access.batch(p, target.value, "write", action);
      batchId = batch.id;
      if (!build.skus.includes(batch.sku) && build.models.length === 0) {
        throw badRequest(`Firmware ${build.version} does not fit SKU ${batch.sku}`);
      }
    } else {
      if (!NAME.test(target.value)) throw badRequest("target must be 1-100 printable characters");
      if (!targetAllowed(p, { target_kind: target.kind, target: target.value })) {
        await this.denied(p, action, { buildId, targetKind: target.kind, target: target.value });
      }
      const listed = target.kind === "sku" ? build.skus : build.models;
      if (!listed.includes(target.value)) {
        throw badRequest(`Firmware ${build.version} does not fit ${target.kind} ${target.value}`);
      }
    }
    const id = uuidv7();
    try {
      await this.db.transaction().execute(async (trx) => {
        await repo.insertRollout(trx, {
          id,
          build_id: build.id,
          target_kind: target.kind,
          target: batchId ?? target.value,
          created_by: p.id,
        });
        await writeAudit(trx, p, {
          action,
          batchId,
          detail: { rolloutId: id, buildId, version: build.version, targetKind: target.kind },
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw conflict(`Firmware ${build.version} is already assigned to that ${target.kind}`);
      }
      throw error;
    }
    this.active = null;
    return toRollout((await repo.findRollout(this.db, id))!);
  }

  /** GET /rollouts: those the principal may read. */
  async listRollouts(
    p: Principal,
    f: { buildId?: string; status?: string; limit: number; offset: number },
  ) {
    const { rows, total } = await repo.listRollouts(this.db, p, f);
    return { items: rows.map(toRollout), total, limit: f.limit, offset: f.offset };
  }

  /** POST /rollouts/{id}:pause and :resume; the same status again changes nothing. */
  async setStatus(p: Principal, rolloutId: string, status: "active" | "paused") {
    const action = status === "paused" ? "firmware_rollout.pause" : "firmware_rollout.resume";
    const row = await this.rollout(p, rolloutId, "write", action);
    if (row.status !== status) {
      await this.db.transaction().execute(async (trx) => {
        await repo.setRolloutStatus(trx, row.id, status);
        await writeAudit(trx, p, {
          action,
          batchId: row.target_kind === "batch" ? row.target : null,
          detail: { rolloutId: row.id, version: row.version, targetKind: row.target_kind },
        });
      });
      this.active = null;
    }
    return toRollout((await repo.findRollout(this.db, row.id))!);
  }

  /**
   * GET /rollouts/{id}/status: the versions its targeted devices report; with `batchId`, only
   * that batch's (a SKU or model rollout's progress per batch; 404 a batch out of scope).
   */
  async status(p: Principal, rolloutId: string, batchId?: string): Promise<RolloutStatusView> {
    const action = "firmware_rollout.read";
    const row = await this.rollout(p, rolloutId, "read", action);
    if (batchId !== undefined) await this.access.batch(p, batchId, "read", action);
    const versions = await firmwareVersions(this.db, p, {
      kind: row.target_kind,
      value: row.target,
    }, batchId);
    return {
      rollout: toRollout(row),
      total: versions.reduce((n, v) => n + v.devices, 0),
      updated: versions.find((v) => v.version === row.version)?.devices ?? 0,
      versions,
    };
  }

  /**
   * The build a device should run now, when an active rollout targets and fits it and the
   * device reports a version, another one; null otherwise. For the devices' side: no principal.
   */
  async offerFor(device: {
    id: string;
    batchId?: string | null;
    sku?: string | null;
    model: string | null;
    firmware: string | null;
  }) {
    // A device that reports no version could never say it updated: it is offered nothing.
    if (!device.firmware) return null;
    if (!this.active || Date.now() - this.active.at > ACTIVE_CHECK_MS) {
      this.active = { value: await repo.anyActiveRollout(this.db), at: Date.now() };
    }
    if (!this.active.value) return null;
    // The batch and SKU are this domain's columns of the device: read here when not given.
    const fit: repo.DeviceFit = device.batchId !== undefined && device.sku !== undefined
      ? { batchId: device.batchId, sku: device.sku, model: device.model }
      : { ...await repo.provisioningOf(this.db, device.id), model: device.model };
    const build = await repo.rolloutBuildFor(this.db, fit);
    if (!build || build.version === device.firmware) return null;
    return {
      id: build.id,
      version: build.version,
      objectKey: build.object_key,
      sha256: build.sha256,
      sizeBytes: build.size_bytes,
    } satisfies OfferedBuild;
  }

  /** A rollout the principal may reach: 404 missing (or out of scope on a read), 403 a write. */
  private async rollout(p: Principal, id: string, mode: "read" | "write", action: string) {
    const row = await repo.findRollout(this.db, id);
    if (!row) throw notFound(`Rollout ${id} not found`);
    if (!targetAllowed(p, { ...row, batch: batchOf(row) })) {
      await writeAudit(this.db, p, {
        action,
        result: "denied",
        batchId: row.target_kind === "batch" ? row.target : null,
        detail: { rolloutId: id, reason: "out of scope" },
      });
      throw mode === "read" ? notFound(`Rollout ${id} not found`) : forbidden("Outside your scope");
    }
    return row;
  }

  private async denied(p: Principal, action: string, detail: Record<string, unknown>) {
    await writeAudit(this.db, p, {
      action,
      result: "denied",
      detail: { ...detail, reason: "out of scope" },
    });
    throw forbidden("Outside your batch or SKU scope");
  }
}
