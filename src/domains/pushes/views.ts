/** Row-to-API mapping of pushes (SPEC 2.9, 4.5 push URL object, upload ticket). */
import { z } from "zod";
import { timestamp } from "../../infra/lib/wire.ts";
import type { Selectable } from "kysely";
import { PUSH_STATUSES, type PushesTable } from "./tables.ts";

export const pushListItemSchema = z.object({
  pushId: z.uuid(),
  title: z.string(),
  summary: z.string(),
  status: z.enum(PUSH_STATUSES),
  priority: z.number().int(),
  createdAt: timestamp,
  // Issue 25, an addition to SPEC 2.9's fields: SPEC 3.1 has no status for a failed render.
  error: z.string().optional().meta({
    description:
      "Why the render failed for good (the source cannot be decoded, or every retry failed); present only then. The push stays PREPARE, is never rendered again and cannot be shown",
  }),
  // Additions to SPEC 2.9's fields (issue 23): when the device showed it. Present only then.
  fetchedAt: timestamp.optional().meta({
    description:
      "When a display (TRMNL's pull protocol) first downloaded its picture; present only then",
  }),
  confirmedAt: timestamp.optional().meta({
    description:
      "When the device confirmed showing it (MQTT `up/confirm`, or a display's next poll); present only then",
  }),
  // Issue 37, an addition: a push a playlist's item made (CONTRACT.md "Screens that keep
  // themselves current"). Present only then.
  source: z.literal("playlist").optional().meta({
    description: "`playlist` for a push a playlist's item made; absent for every other push",
  }),
  pluginId: z.uuid().optional().meta({
    description: "The plugin a playlist's push shows (the first slot's of a mashup)",
  }),
}).meta({ id: "PushListItem" });

export const pushPageSchema = z.object({
  items: z.array(pushListItemSchema),
  nextCursor: z.string().optional(),
  hasMore: z.boolean(),
}).meta({ id: "PushPage" });

export const pushUrlSchema = z.object({
  url: z.string().meta({ description: "Signed URL of the bitmap, valid 15 minutes" }),
  pushId: z.uuid(),
  status: z.enum(PUSH_STATUSES),
  changed: z.boolean(),
  // Issue 12, an addition to SPEC 2.9's fields: the device can skip redrawing what it shows.
  sha256: z.string().nullable().meta({
    description:
      "SHA-256 (lower-case hex) of the file the URL points to; null for pushes rendered before digests were kept",
  }),
}).meta({ id: "PushUrl" });

export const uploadTicketSchema = z.object({
  fileId: z.uuid(),
  url: z.string(),
  fields: z.record(z.string(), z.string()),
  expiresAt: timestamp,
}).meta({ id: "UploadTicket" });

/** SPEC 4.5 `format`: which of the three rendered files a URL points at. */
export const FORMAT_FILES = { png: "image.png", raw2: "image2.raw", raw4: "image4.raw" } as const;
export type PushFormat = keyof typeof FORMAT_FILES;

/** Unknown or missing values fall back to `png` (SPEC 4.5). */
export function parseFormat(value: unknown): PushFormat {
  return typeof value === "string" && Object.hasOwn(FORMAT_FILES, value)
    ? value as PushFormat
    : "png";
}

export function toPushListItem(row: Selectable<PushesTable>): z.infer<typeof pushListItemSchema> {
  return {
    pushId: row.id,
    title: row.title,
    summary: row.summary,
    status: row.status,
    priority: row.priority,
    createdAt: row.created_at.toISOString(),
    ...(row.render_failed_at ? { error: row.render_error ?? "Render failed" } : {}),
    ...(row.fetched_at ? { fetchedAt: row.fetched_at.toISOString() } : {}),
    ...(row.confirmed_at ? { confirmedAt: row.confirmed_at.toISOString() } : {}),
    ...playlistSource(row.params),
  };
}

/** A playlist's push says so (its params carry `playlistId`), with the plugin it shows. */
function playlistSource(params: unknown): { source?: "playlist"; pluginId?: string } {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.playlistId !== "string") return {};
  const first = typeof p.pluginId === "string"
    ? p.pluginId
    : Array.isArray(p.pluginIds) && typeof p.pluginIds[0] === "string"
    ? p.pluginIds[0]
    : undefined;
  return { source: "playlist", ...(first ? { pluginId: first } : {}) };
}
