/** Wire shapes of the firmware registry (issue 24). */
import { z } from "zod";
import type { BuildRow, RolloutJoinRow } from "./firmware_repository.ts";

export const firmwareBuildSchema = z.object({
  id: z.string(),
  version: z.string(),
  models: z.array(z.string()).meta({ description: "Models (a display's `Model`) it fits" }),
  skus: z.array(z.string()).meta({ description: "SKUs it fits" }),
  notes: z.string().nullable(),
  sha256: z.string().meta({ description: "SHA-256 of the file, hex" }),
  sizeBytes: z.number().int(),
  createdBy: z.string(),
  createdAt: z.string(),
}).meta({ id: "FirmwareBuild" });

export const TARGET_KINDS = ["batch", "sku", "model"] as const;

export const rolloutSchema = z.object({
  id: z.string(),
  buildId: z.string(),
  version: z.string(),
  targetKind: z.enum(TARGET_KINDS),
  target: z.string().meta({ description: "A batch id, a SKU or a model" }),
  status: z.enum(["active", "paused"]),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "FirmwareRollout" });

export const rolloutStatusSchema = z.object({
  rollout: rolloutSchema,
  total: z.number().int().meta({ description: "Devices the rollout targets (in your scope)" }),
  updated: z.number().int().meta({ description: "Of them, reporting the build's version" }),
  versions: z.array(z.object({
    version: z.string().nullable().meta({ description: "null: never reported one" }),
    devices: z.number().int(),
  })).meta({ description: "Reported versions, most devices first (at most 200)" }),
}).meta({ id: "FirmwareRolloutStatus" });

export type BuildView = z.infer<typeof firmwareBuildSchema>;
export type RolloutView = z.infer<typeof rolloutSchema>;

export function toBuild(row: BuildRow): BuildView {
  return {
    id: row.id,
    version: row.version,
    models: row.models,
    skus: row.skus,
    notes: row.notes,
    sha256: row.sha256,
    sizeBytes: row.size_bytes,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  };
}

export function toRollout(row: RolloutJoinRow): RolloutView {
  return {
    id: row.id,
    buildId: row.build_id,
    version: row.version,
    targetKind: row.target_kind as RolloutView["targetKind"],
    target: row.target,
    status: row.status as RolloutView["status"],
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type RolloutStatusView = z.infer<typeof rolloutStatusSchema>;
