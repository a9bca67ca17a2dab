/** Table types of firmware updates on the devices' side (migrations/0950_firmware.sql). */
import type { Generated } from "kysely";

/** An owner's hold and the last offer of a build to one device. */
export interface DeviceFirmwareTable {
  device_id: string;
  held: Generated<boolean>;
  offered_at: Date | null;
  offered_build_id: string | null;
}

export interface FirmwareUpdateTables {
  device_firmware: DeviceFirmwareTable;
}

declare module "../../schema.ts" {
  interface DB extends FirmwareUpdateTables {}
}
