/** Table types of targetless contents and presentations (migrations/0600_targetless.sql). */
import type { ColumnType, RawBuilder } from "kysely";
import type { ColorMode } from "../../infra/render/scene/types.ts";

export type ContentMode = "auto" | "hardcode" | "manual";
export type ContentState = "uploading" | "processing" | "ready" | "failed";
export type PresentationKind = "generated" | "display";
/** What is stored; a display presentation's wire state is read from its push (views.ts). */
export type StoredPresentationState = "preparing" | "ready" | "failed";
export type RenditionState = "preparing" | "ready" | "failed";

/** SPEC 2.10 output profile, resolved: preset or not, the viewport is always known. */
export interface OutputProfile {
  formats: Array<"scene" | "png">;
  preset: string | null;
  viewport: { width: number; height: number };
  colorMode: ColorMode;
}

/** An asset as stored (CONTRACT.md "Targetless contents"). */
export type StoredAsset =
  | { type: "text"; text: string }
  | { type: "link"; url: string }
  | {
    type: "image";
    contentType: "image/png" | "image/jpeg";
    sizeBytes: number;
    filename?: string;
    fileId: string;
  };

/** SPEC 2.12 problem object: a machine-readable code and a sentence for people. */
export interface Problem {
  code: string;
  message: string;
}

/** A json column: written only through `json()` (repository.ts), read as the value. */
type Json<T> = ColumnType<T, RawBuilder<T>, RawBuilder<T>>;
type NullableJson<T> = ColumnType<T | null, RawBuilder<T> | null, RawBuilder<T> | null>;
type Created = ColumnType<Date, Date | undefined, never>;
type Updated = ColumnType<Date, Date | undefined, Date>;

export interface TargetlessContentsTable {
  id: string;
  user_id: string;
  mode: ContentMode;
  intent: string;
  title: string;
  output: NullableJson<OutputProfile>;
  display_id: string | null;
  assets: Json<StoredAsset[]>;
  state: ContentState;
  created_at: Created;
  updated_at: Updated;
}

export interface PresentationsTable {
  id: string;
  user_id: string;
  kind: PresentationKind;
  mode: ContentMode;
  display_id: string | null;
  push_id: string | null;
  state: StoredPresentationState;
  output: NullableJson<OutputProfile>;
  /** The stored Scene envelope (SPEC 2.11): image elements carry `fileId` only. */
  scene: NullableJson<unknown>;
  failure: NullableJson<Problem>;
  created_at: Created;
  updated_at: Updated;
}

export interface PresentationContentsTable {
  presentation_id: string;
  content_id: string;
  created_at: Created;
}

export interface RenditionsTable {
  id: string;
  presentation_id: string;
  user_id: string;
  format: "png";
  width: number;
  height: number;
  color_mode: ColorMode;
  initial: boolean;
  state: RenditionState;
  /**
   * Preparing, but not yet holding one of the user's concurrent slots: no job renders it until
   * a slot frees (slots.ts). Only initial renditions wait; the API shows them `preparing`.
   */
  waiting: ColumnType<boolean, boolean | undefined, boolean>;
  object_key: string | null;
  failure: NullableJson<Problem>;
  created_at: Created;
  updated_at: Updated;
}

export interface TargetlessIdempotencyKeysTable {
  user_id: string;
  scope: "contents" | "renditions";
  key: string;
  fingerprint: string;
  resource_id: string;
  created_at: Created;
}

export interface TargetlessTables {
  targetless_contents: TargetlessContentsTable;
  presentations: PresentationsTable;
  presentation_contents: PresentationContentsTable;
  renditions: RenditionsTable;
  targetless_idempotency_keys: TargetlessIdempotencyKeysTable;
}

declare module "../../schema.ts" {
  interface DB extends TargetlessTables {}
}
