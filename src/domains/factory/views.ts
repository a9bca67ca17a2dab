/** Row-to-API mapping of the factory resources (SPEC 2.14); the one place rows become views. */
import { z } from "zod";
import { timestamp } from "../../infra/lib/wire.ts";
import type { Selectable } from "kysely";
import type {
  FactoryAuditLogsTable,
  FactoryBatchesTable,
  NfcDownloadRequestsTable,
} from "./tables.ts";
import { maskedBindUri } from "./nfc_crypto.ts";

export const batchSchema = z.object({
  id: z.uuid(),
  orderNo: z.string(),
  sku: z.string(),
  hwRevision: z.string().nullable(),
  plannedQuantity: z.number().int(),
  factoryId: z.string().nullable(),
  status: z.enum(["open", "closed"]),
  createdAt: timestamp,
  createdBy: z.string(),
}).meta({ id: "FactoryBatch" });

export const credentialSchema = z.object({
  id: z.uuid(),
  keyId: z.string(),
  credentialVersion: z.number().int(),
  status: z.enum(["generated", "downloaded", "revoked"]),
  payloadSha256: z.string(),
  payloadPreview: z.string(),
  issuedBy: z.string(),
  issuedAt: timestamp,
  downloadCount: z.number().int(),
  requiresApproval: z.boolean(),
}).meta({ id: "FactoryCredential" });

export const deviceViewSchema = z.object({
  id: z.uuid(),
  serial: z.string(),
  hwId: z.string(),
  thingName: z.string(),
  batchId: z.uuid(),
  orderNo: z.string(),
  sku: z.string().nullable(),
  hwRevision: z.string().nullable(),
  lifecycleStatus: z.enum(["registered", "provisioned"]),
  nfcStatus: z.enum(["pending", "generated", "downloaded", "revoked"]),
  credentialVersion: z.number().int(),
  nfcKeyId: z.string().nullable(),
  bound: z.boolean(),
  online: z.boolean(),
  firmware: z.string().nullable().meta({ description: "The firmware version it last reported" }),
  createdAt: timestamp,
  credential: credentialSchema.nullable(),
}).meta({ id: "FactoryDeviceView" });

export const registeredDeviceSchema = deviceViewSchema.pick({
  id: true,
  hwId: true,
  thingName: true,
  serial: true,
  batchId: true,
  lifecycleStatus: true,
  nfcStatus: true,
  credentialVersion: true,
  bound: true,
  createdAt: true,
}).meta({ id: "FactoryRegisteredDevice" });

export const downloadRequestSchema = z.object({
  id: z.uuid(),
  credentialId: z.uuid(),
  requestedBy: z.string(),
  status: z.enum(["pending", "approved", "rejected"]),
  createdAt: timestamp,
  reason: z.string().nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: timestamp.nullable(),
  expiresAt: timestamp.nullable(),
  usedAt: timestamp.nullable(),
}).meta({ id: "FactoryDownloadRequest" });

export const auditLogSchema = z.object({
  id: z.uuid(),
  action: z.string(),
  result: z.string(),
  principalId: z.string().nullable(),
  principalName: z.string().nullable(),
  batchId: z.uuid().nullable(),
  deviceId: z.uuid().nullable(),
  detail: z.record(z.string(), z.unknown()),
  createdAt: timestamp,
}).meta({ id: "FactoryAuditLog" });

export const manifestKeySchema = z.object({
  id: z.string(),
  publicKey: z.string(),
  algorithm: z.literal("ed25519"),
  createdAt: timestamp,
}).meta({ id: "FactoryManifestKey" });

export const countsSchema = z.object({
  registered: z.number().int(),
  credentialGenerated: z.number().int(),
  downloaded: z.number().int(),
  bound: z.number().int(),
  plannedQuantity: z.number().int(),
});

export const principalSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(["operator", "supervisor", "auditor"]),
  stationId: z.string().nullable(),
  factoryId: z.string().nullable(),
  batches: z.array(z.string()),
  skus: z.array(z.string()),
}).meta({ id: "FactoryPrincipal" });

/** `{items, total, limit, offset}` (SPEC 2.14). */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
}

export type BatchView = z.infer<typeof batchSchema>;
export type CredentialView = z.infer<typeof credentialSchema>;
export type DeviceView = z.infer<typeof deviceViewSchema>;

export function toBatch(row: Selectable<FactoryBatchesTable>): BatchView {
  return {
    id: row.id,
    orderNo: row.order_no,
    sku: row.sku,
    hwRevision: row.hw_revision,
    plannedQuantity: row.planned_quantity,
    factoryId: row.factory_id,
    status: row.status as BatchView["status"],
    createdAt: row.created_at.toISOString(),
    createdBy: row.created_by,
  };
}

/** The columns of a credential row as selected with a device (`c_` prefix). */
export interface CredentialColumns {
  c_id: string | null;
  c_key_id: string | null;
  c_credential_version: number | null;
  c_status: string | null;
  c_payload_sha256: string | null;
  c_issued_by: string | null;
  c_issued_at: Date | null;
  c_download_count: number | null;
}

/** The device row joined with its batch and current credential. */
export interface DeviceJoinRow extends CredentialColumns {
  id: string;
  serial: string | null;
  hw_id: string;
  thing_name: string;
  batch_id: string | null;
  order_no: string;
  /** The batch's SKU (the device may override it; the scope rule reads both). */
  batch_sku: string;
  sku: string | null;
  hw_revision: string | null;
  lifecycle_status: string;
  nfc_status: string;
  credential_version: number;
  nfc_key_id: string | null;
  owner_id: string | null;
  online: boolean;
  firmware: string | null;
  created_at: Date;
}

/** The credential view; the preview masks the proof (SPEC 2.14). */
export function toCredential(
  scheme: string,
  hwId: string,
  c: CredentialColumns,
): CredentialView | null {
  if (!c.c_id) return null;
  const downloads = c.c_download_count ?? 0;
  return {
    id: c.c_id,
    keyId: c.c_key_id!,
    credentialVersion: c.c_credential_version!,
    status: c.c_status as CredentialView["status"],
    payloadSha256: c.c_payload_sha256!,
    payloadPreview: maskedBindUri(scheme, {
      keyId: c.c_key_id!,
      hwId,
      credentialVersion: c.c_credential_version!,
    }),
    issuedBy: c.c_issued_by!,
    issuedAt: c.c_issued_at!.toISOString(),
    downloadCount: downloads,
    // A repeat download by an operator needs an approved request (SPEC 4.8).
    requiresApproval: downloads > 0,
  };
}

export function toDeviceView(scheme: string, row: DeviceJoinRow): DeviceView {
  return {
    id: row.id,
    serial: row.serial ?? "",
    hwId: row.hw_id,
    thingName: row.thing_name,
    batchId: row.batch_id!,
    orderNo: row.order_no,
    sku: row.sku,
    hwRevision: row.hw_revision,
    lifecycleStatus: row.lifecycle_status as DeviceView["lifecycleStatus"],
    nfcStatus: row.nfc_status as DeviceView["nfcStatus"],
    credentialVersion: row.credential_version,
    nfcKeyId: row.nfc_key_id,
    bound: row.owner_id !== null,
    online: row.online,
    firmware: row.firmware,
    createdAt: row.created_at.toISOString(),
    credential: toCredential(scheme, row.hw_id, row),
  };
}

export function toRegistered(view: DeviceView) {
  const { id, hwId, thingName, serial, batchId, lifecycleStatus, nfcStatus } = view;
  return {
    id,
    hwId,
    thingName,
    serial,
    batchId,
    lifecycleStatus,
    nfcStatus,
    credentialVersion: view.credentialVersion,
    bound: view.bound,
    createdAt: view.createdAt,
  };
}

export function toDownloadRequest(
  row: Selectable<NfcDownloadRequestsTable>,
): z.infer<typeof downloadRequestSchema> {
  return {
    id: row.id,
    credentialId: row.credential_id,
    requestedBy: row.requested_by,
    status: row.status as "pending",
    createdAt: row.created_at.toISOString(),
    reason: row.reason,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    usedAt: row.used_at?.toISOString() ?? null,
  };
}

export function toAuditLog(row: Selectable<FactoryAuditLogsTable>): z.infer<typeof auditLogSchema> {
  return {
    id: row.id,
    action: row.action,
    result: row.result,
    principalId: row.principal_id,
    principalName: row.principal_name,
    batchId: row.batch_id,
    deviceId: row.device_id,
    detail: row.detail ?? {},
    createdAt: row.created_at.toISOString(),
  };
}
