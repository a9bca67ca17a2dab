/**
 * The factory audit log (SPEC 4.8): rows written in the transaction of each change, and the list
 * a principal may read. Rows carry ids, counts and reasons, never a proof or an MQTT password.
 */
import type { Db } from "../../schema.ts";
import { uuidv7 } from "../../infra/lib/ids.ts";
import { type AuditFilters, insertAudit, listAudit } from "./audit_repository.ts";
import type { Principal } from "./principals.ts";
import { toAuditLog } from "./views.ts";

/** One audit entry; `result` defaults to success. */
export interface AuditEntry {
  action: string;
  result?: "success" | "denied";
  batchId?: string | null;
  deviceId?: string | null;
  detail?: Record<string, unknown>;
}

/** The row of one entry by a principal (null for an unknown bearer). */
export function auditRow(principal: Principal | null, e: AuditEntry) {
  return {
    id: uuidv7(),
    action: e.action,
    result: e.result ?? "success",
    principal_id: principal?.id ?? null,
    principal_name: principal?.name ?? null,
    batch_id: e.batchId ?? null,
    device_id: e.deviceId ?? null,
    detail: e.detail ?? {},
  };
}

/** Writes entries with the given executor (pass the open transaction for a change). */
export function writeAudit(db: Db, principal: Principal | null, ...entries: AuditEntry[]) {
  return insertAudit(db, entries.map((e) => auditRow(principal, e)));
}

/** Reading the audit log (GET /audit-logs). */
export class AuditService {
  constructor(private readonly db: Db) {}

  /** The entries the principal may read (`audit_repository.ts` says which), newest first. */
  async list(p: Principal, f: AuditFilters) {
    const { rows, total } = await listAudit(this.db, p, f);
    return { items: rows.map(toAuditLog), total, limit: f.limit, offset: f.offset };
  }
}
