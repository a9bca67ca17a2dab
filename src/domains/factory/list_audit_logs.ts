import { z } from "zod";
import { uuidParam } from "../../infra/lib/params.ts";
import { factoryMeta, factoryProcedure } from "./auth.ts";
import { paging } from "./inputs.ts";
import { auditLogSchema, pageOf } from "./views.ts";

const time = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });

/** GET /internal/factory/audit-logs: newest first, filtered, within the scope. */
export const listAuditLogs = factoryProcedure("listAuditLogs")
  .meta(factoryMeta("GET", "/audit-logs", "List audit log entries", { 400: "Invalid query" }))
  .input(z.object({
    batchId: uuidParam.optional(),
    deviceId: uuidParam.optional(),
    action: z.string().trim().min(1).max(100).optional(),
    from: time.optional(),
    to: time.optional(),
    ...paging(50, 200),
  }))
  .output(pageOf(auditLogSchema))
  .query(({ ctx, input }) =>
    ctx.services.factory.audit.list(ctx.principal, {
      ...input,
      from: input.from ? new Date(input.from) : undefined,
      to: input.to ? new Date(input.to) : undefined,
    })
  );
