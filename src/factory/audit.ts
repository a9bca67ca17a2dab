/** Audit rows of the factory console (SPEC 4.8): written in the transaction of each change. */
import type { Db } from "../schema.ts";
import { uuidv7 } from "../lib/ids.ts";
import type { Principal } from "./principals.ts";
import { insertAudit } from "./repository.ts";

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
