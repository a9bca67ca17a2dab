/** Table types of the factory console (migrations/0100_factory.sql). */
import type { ColumnType, Generated } from "kysely";

export interface FactoryBatchesTable {
  id: string;
  order_no: string;
  sku: string;
  hw_revision: string | null;
  planned_quantity: number;
  factory_id: string | null;
  status: Generated<string>;
  created_at: ColumnType<Date, Date | undefined, never>;
  created_by: string;
}

export interface NfcCredentialsTable {
  id: string;
  device_id: string;
  key_id: string;
  credential_version: number;
  status: Generated<string>;
  payload_sha256: string;
  issued_by: string;
  issued_at: Date;
  download_count: Generated<number>;
  revoked_at: Date | null;
}

export interface NfcDownloadRequestsTable {
  id: string;
  credential_id: string;
  requested_by: string;
  status: Generated<string>;
  reason: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  expires_at: Date | null;
  used_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface FactoryIdempotencyKeysTable {
  principal_id: string;
  key: string;
  fingerprint: string;
  device_id: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface FactoryAuditLogsTable {
  id: string;
  action: string;
  result: string;
  principal_id: string | null;
  principal_name: string | null;
  batch_id: string | null;
  device_id: string | null;
  /** A JSON object; pass the raw object (postgres.js jsonb). */
  detail: ColumnType<Record<string, unknown>, Record<string, unknown> | undefined, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/**
 * The factory's columns of the `devices` table, split by columns with the devices domain
 * (docs/decisions.md "Shape of the code"): what provisioning writes (migrations/0003_devices.sql,
 * 0100_factory.sql). The row's identity and its life with an owner are declared by devices.
 */
export interface FactoryDeviceColumns {
  serial: string | null;
  batch_id: string | null;
  sku: string | null;
  hw_revision: string | null;
  lifecycle_status: Generated<string>;
  nfc_status: Generated<string>;
  credential_version: Generated<number>;
  nfc_key_id: string | null;
}

export interface FactoryTables {
  devices: FactoryDeviceColumns;
  factory_batches: FactoryBatchesTable;
  nfc_credentials: NfcCredentialsTable;
  nfc_download_requests: NfcDownloadRequestsTable;
  factory_idempotency_keys: FactoryIdempotencyKeysTable;
  factory_audit_logs: FactoryAuditLogsTable;
  factory_rate_windows: FactoryRateWindowsTable;
  firmware_builds: FirmwareBuildsTable;
  firmware_rollouts: FirmwareRolloutsTable;
}

/** A firmware build in the registry (migrations/0950_firmware.sql); its file is in storage. */
export interface FirmwareBuildsTable {
  id: string;
  version: string;
  models: string[];
  skus: string[];
  notes: string | null;
  object_key: string;
  sha256: string;
  size_bytes: number;
  created_by: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** A build assigned to a batch, a SKU or a model; `active` or `paused`. */
export interface FirmwareRolloutsTable {
  id: string;
  build_id: string;
  target_kind: string;
  target: string;
  status: Generated<string>;
  created_by: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** Download counts per principal and minute (migrations/0800_factory_rate_windows.sql). */
export interface FactoryRateWindowsTable {
  key: string;
  window_start: Date;
  hits: number;
}

// The factory's columns of the `devices` table, beside the devices domain's own.
declare module "../devices/tables.ts" {
  interface OtherDeviceColumns extends FactoryDeviceColumns {}
}

// Its tables in the database's type (`devices` is split, above).
declare module "../../schema.ts" {
  interface DB extends Omit<FactoryTables, "devices"> {}
}
