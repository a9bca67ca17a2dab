/** Table types of pushes (migrations/0201_pushes.sql). */
import type { ColumnType, Generated } from "kysely";

/** SPEC 2.9 / 3.1. */
export const PUSH_STATUSES = ["PREPARE", "QUEUE", "PUBLISHED", "CONFIRMED", "EXPIRED"] as const;
export type PushStatus = typeof PUSH_STATUSES[number];

export interface PushesTable {
  id: string;
  device_id: string;
  /** The owner the push was made for; keys live under `render/{userId}/...`. */
  user_id: string;
  title: Generated<string>;
  summary: Generated<string>;
  status: PushStatus;
  priority: Generated<number>;
  /** `custom-image` for uploads; other templates are rendered by their domain's source. */
  template: string;
  /** Template variables; pass the raw object (postgres.js jsonb). */
  params: ColumnType<unknown, unknown | undefined, unknown>;
  /** Object key of the uploaded source image (custom pushes). */
  source_key: string | null;
  /** `render/{userId}/{deviceId}/{pushId}/` once rendered. */
  render_prefix: string | null;
  /** The `image.png` file record, once rendered. */
  file_id: string | null;
  /** SHA-256 (hex) of `image.png`, `image2.raw`, `image4.raw` once rendered (migration 0700). */
  png_sha256: string | null;
  raw2_sha256: string | null;
  raw4_sha256: string | null;
  render_attempts: Generated<number>;
  render_error: string | null;
  /** Set once the render failed for good (migration 0830): no job renders the push again. */
  render_failed_at: Date | null;
  rendered_at: Date | null;
  published_at: Date | null;
  confirmed_at: Date | null;
  /** A display's first download of its picture (`GET /api/display/image/...`); null: none. */
  fetched_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PushTables {
  pushes: PushesTable;
}

declare module "../../schema.ts" {
  interface DB extends PushTables {}
}
