/** Table types of stored objects (migrations/0200_files.sql). */
import type { ColumnType } from "kysely";

/** Why a file exists: an upload (custom push, raw-item attachment, targetless asset) or a render. */
export type FilePurpose =
  | "custom_push_source"
  | "push_render"
  | "raw_item_attachment"
  | "targetless_asset";

export interface FilesTable {
  id: string;
  user_id: string;
  device_id: string | null;
  purpose: FilePurpose;
  object_key: string;
  content_type: string;
  size_bytes: ColumnType<number | null, number | null | undefined, number | null>;
  /** `pending` until a custom-push upload is confirmed; render output is born `confirmed`. */
  status: "pending" | "confirmed";
  expires_at: Date | null;
  confirmed_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface FileTables {
  files: FilesTable;
}

declare module "../../schema.ts" {
  interface DB extends FileTables {}
}
