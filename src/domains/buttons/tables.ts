/** Table types of display button actions (migrations/0950_firmware.sql). */

/** What a press of one display's button does. */
export interface DisplayButtonsTable {
  device_id: string;
  action: string;
}

export interface ButtonTables {
  display_buttons: DisplayButtonsTable;
}

declare module "../../schema.ts" {
  interface DB extends ButtonTables {}
}
