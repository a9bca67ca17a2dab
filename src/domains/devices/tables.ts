/**
 * Table types of devices (migrations/0003_devices.sql). The `devices` table is split by columns
 * (docs/decisions.md "Shape of the code"): these are the devices domain's, the row's identity and
 * its life with an owner; the factory declares its provisioning columns in its own `tables.ts`.
 */
import type { ColumnType, Generated } from "kysely";

export interface DevicesTable {
  id: string;
  hw_id: string;
  thing_name: string;
  nickname: string | null;
  firmware: string | null;
  battery: number | null;
  online: Generated<boolean>;
  /** Last `up/status` payload: "online" or "offline". */
  last_status: string | null;
  last_seen_at: Date | null;
  owner_id: string | null;
  bound_at: Date | null;
  claim_code: string | null;
  /** Arbitrary JSON object reported on `up/state`; pass the raw object (postgres.js jsonb). */
  state: ColumnType<unknown, unknown, unknown> | null;
  state_updated_at: Date | null;
  tags: Generated<string[]>;
  latest_push_id: string | null;
  latest_push_at: Date | null;
  /** `mqtt` (made by the factory) or `http` (a display polling the TRMNL protocol). */
  transport: Generated<string>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface DeviceTables {
  devices: DevicesTable;
}

/** Commands sent to devices (migrations/0202_device_commands.sql, SPEC 2.8). */
export interface DeviceCommandsTable {
  id: string;
  device_id: string;
  user_id: string | null;
  thing_name: string;
  kind: string;
  /** The full command as sent; pass the raw object (postgres.js jsonb). */
  payload: ColumnType<unknown, unknown, unknown>;
  status: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface DeviceCommandTables {
  device_commands: DeviceCommandsTable;
}

/**
 * The columns other domains keep on a device row: the factory adds its provisioning columns
 * here (factory/tables.ts), so the `devices` table's type is both parts.
 */
// deno-lint-ignore no-empty-interface -- the factory's tables.ts extends it
export interface OtherDeviceColumns {}

declare module "../../schema.ts" {
  interface DB extends DeviceCommandTables {
    devices: DevicesTable & OtherDeviceColumns;
  }
}
