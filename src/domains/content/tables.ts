/** Table types of the content pipeline (migrations/0500_content.sql). */
import type { ColumnType, Generated } from "kysely";

/** CONTRACT.md: `uploading` until confirm, then `processing`, `summarized` or `failed`. */
export const RAW_ITEM_STATUSES = ["uploading", "processing", "summarized", "failed"] as const;
export type RawItemStatus = typeof RAW_ITEM_STATUSES[number];

/** SPEC 4.6: MANUAL (`POST /api/analyze/trigger`) or SCHEDULED (`ANALYZE_SCHEDULE`). */
export type AnalyzeReason = "MANUAL" | "SCHEDULED";
export const RUN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type RunStatus = typeof RUN_STATUSES[number];

/** Any JSON value in a jsonb column: pass the raw value (postgres.js jsonb, STACK.md). */
type Json = ColumnType<unknown, unknown | undefined, unknown>;

export interface RawItemsTable {
  id: string;
  user_id: string;
  title: string | null;
  text: string | null;
  status: RawItemStatus;
  summary_content: ColumnType<unknown | null, unknown | undefined, unknown | null>;
  error: string | null;
  summary_attempts: Generated<number>;
  confirmed_at: Date | null;
  summarized_at: Date | null;
  failed_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface RawItemAttachmentsTable {
  raw_item_id: string;
  position: number;
  file_id: string;
  filename: string | null;
  description: string | null;
}

export interface AnalyzeRunsTable {
  id: string;
  user_id: string;
  reason: AnalyzeReason;
  status: RunStatus;
  model: string | null;
  steps: Json;
  error: string | null;
  attempts: Generated<number>;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ContentPushesTable {
  push_id: string;
  raw_item_id: string;
  device_id: string;
  user_id: string;
  run_id: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface ContentTables {
  raw_items: RawItemsTable;
  raw_item_attachments: RawItemAttachmentsTable;
  analyze_runs: AnalyzeRunsTable;
  content_pushes: ContentPushesTable;
}

declare module "../../schema.ts" {
  interface DB extends ContentTables {}
}
