/** Table types of plugins (migrations/1020_plugins.sql). */
import type { ColumnType, Generated } from "kysely";

/** The five Liquid views of a plugin; `shared` is laid before each of the others. */
export interface PluginMarkup {
  full: string;
  halfHorizontal?: string;
  halfVertical?: string;
  quadrant?: string;
  shared?: string;
}

/** Where a polling plugin's data comes from (Liquid in each string sees the custom fields). */
export interface PluginPolling {
  urls: string[];
  verb?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

export type PluginStrategy = "static" | "webhook" | "polling";

type Json<T> = ColumnType<T, string, string>;

export interface PluginsTable {
  id: string;
  user_id: string;
  name: string;
  strategy: PluginStrategy;
  markup: Json<PluginMarkup>;
  static_data: Json<Record<string, unknown>>;
  polling: ColumnType<PluginPolling | null, string | null, string | null>;
  refresh_minutes: number;
  custom_fields: Json<Record<string, unknown>>;
  webhook_uuid: string | null;
  merge_variables: ColumnType<Record<string, unknown>, string | undefined, string>;
  data_updated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  data_error: ColumnType<string | null, string | null | undefined, string | null>;
  data_polled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  data_failed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  inbox_window_start: ColumnType<Date | null, Date | null | undefined, Date | null>;
  inbox_window_count: Generated<number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PluginTables {
  plugins: PluginsTable;
}

declare module "../../schema.ts" {
  interface DB extends PluginTables {}
}
