/** Table types of plugins (migrations/1020_plugins.sql). */
import type { ColumnType, Generated, Selectable } from "kysely";

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

/** A jsonb column: read as `T`, written through `jsonb()` (repository.ts). */
type Json<T> = ColumnType<T, unknown, unknown>;

export interface PluginsTable {
  id: string;
  user_id: string;
  name: string;
  strategy: PluginStrategy;
  markup: Json<PluginMarkup>;
  static_data: Json<Record<string, unknown>>;
  polling: Json<PluginPolling | null>;
  refresh_minutes: number;
  custom_fields: Json<Record<string, unknown>>;
  custom_field_definitions: Json<Array<{ keyname: string } & Record<string, unknown>>>;
  webhook_uuid: string | null;
  merge_variables: Json<Record<string, unknown>>;
  data_updated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  data_error: ColumnType<string | null, string | null | undefined, string | null>;
  data_polled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  data_failed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  inbox_window_start: ColumnType<Date | null, Date | null | undefined, Date | null>;
  inbox_window_count: Generated<number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A plugin as read. */
export type PluginRow = Selectable<PluginsTable>;

export interface PluginTables {
  plugins: PluginsTable;
}

declare module "../../schema.ts" {
  interface DB extends PluginTables {}
}
