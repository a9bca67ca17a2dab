/** A display's profile (CONTRACT.md "Displays people already own"): how its pushes are drawn. */
import { z } from "zod";
import type { Selectable } from "kysely";
import { DEFAULT_MODEL, modelOf, MODELS } from "./models.ts";
import type { DisplayLogsTable, DisplaysTable } from "./tables.ts";
import { timestamp } from "../../infra/lib/wire.ts";
import { sleepWindowSchema } from "./sleep.ts";

export const BIT_DEPTHS = [1, 2, 4] as const;
export const ROTATIONS = [0, 90, 180, 270] as const;
export const MAX_SIDE = 4096;
/** CONTRACT.md "Display ownership and fair shares": a panel of at most 4 MP, like renditions. */
export const MAX_PANEL_PIXELS = 4_000_000;
export const MIN_REFRESH_RATE = 60;
export const MAX_REFRESH_RATE = 86_400;

export const profileSchema = z.object({
  model: z.string().meta({ description: "TRMNL's model name, e.g. `og`, `x`" }),
  width: z.number().int().min(1).max(MAX_SIDE),
  height: z.number().int().min(1).max(MAX_SIDE),
  bitDepth: z.union(BIT_DEPTHS.map((d) => z.literal(d))).meta({
    description: "Bits of grey per pixel of its PNG: 1, 2 or 4",
  }),
  colors: z.number().int().meta({ description: "Grey levels: 2 to the bitDepth" }),
  rotation: z.union(ROTATIONS.map((d) => z.literal(d))),
  // An added field (CONTRACT.md: the refresh interval is owner-settable).
  refreshRate: z.number().int().min(MIN_REFRESH_RATE).max(MAX_REFRESH_RATE).meta({
    description: "Seconds between polls (`refresh_rate`), 60 to 86400; default 900",
  }),
  // An added field: polls inside the window are told to sleep until its end.
  sleepWindow: sleepWindowSchema.nullable(),
  // CONTRACT.md "Displays that send no key": the owner's opt-in, default false.
  keyless: z.boolean().meta({
    description: "Whether polls with this display's MAC and no `Access-Token` show its pictures " +
      "(TRMNL's Raspberry Pi client in custom-server mode sends no key). Off: such a poll gets a " +
      "screen saying how to give the client its key. On, the MAC is the only credential",
  }),
}).meta({ id: "DisplayProfile" });

export type DisplayProfile = z.infer<typeof profileSchema>;

/**
 * The profile: the model registry by the `Model` header, then the `Width`/`Height` headers,
 * then what the owner set (a model the owner chose brings its own size).
 */
export function toProfile(row: Selectable<DisplaysTable>): DisplayProfile {
  const owner = row.profile ?? {};
  const reportedModel = modelOf(row.model) ? row.model!.trim().toLowerCase() : undefined;
  const name = owner.model ?? reportedModel ?? DEFAULT_MODEL;
  const model = modelOf(name) ?? MODELS[DEFAULT_MODEL];
  const reported = owner.model === undefined;
  // Reported sides larger than a panel may be (4 MP) are not taken: the model's size is.
  const fits = (row.reported_width ?? 1) * (row.reported_height ?? 1) <= MAX_PANEL_PIXELS;
  const fromPanel = reported && fits;
  const width = owner.width ?? (fromPanel ? row.reported_width : null) ?? model.width;
  const height = owner.height ?? (fromPanel ? row.reported_height : null) ?? model.height;
  const bitDepth = owner.bitDepth ?? model.bitDepth;
  return {
    model: name,
    width,
    height,
    bitDepth,
    colors: 2 ** bitDepth,
    rotation: owner.rotation ?? model.rotation ?? 0,
    refreshRate: row.refresh_rate,
    sleepWindow: owner.sleepWindow ?? null,
    keyless: row.keyless,
  };
}

export const logItemSchema = z.object({
  id: z.uuid(),
  level: z.string(),
  message: z.string(),
  createdAt: timestamp.meta({ description: "When the service received it" }),
  entry: z.record(z.string(), z.unknown()).meta({
    description: "The entry as the display sent it",
  }),
}).meta({ id: "DisplayLogEntry" });

export const logPageSchema = z.object({
  items: z.array(logItemSchema),
  nextCursor: z.string().optional(),
  hasMore: z.boolean(),
}).meta({ id: "DisplayLogPage" });

export function toLogItem(row: Selectable<DisplayLogsTable>): z.infer<typeof logItemSchema> {
  return {
    id: row.id,
    level: row.level,
    message: row.message,
    createdAt: row.created_at.toISOString(),
    entry: row.entry as Record<string, unknown>,
  };
}
