/** Row-to-API mapping of raw items, analyze runs and templates (CONTRACT.md "Content pipeline"). */
import { z } from "zod";
import type { Selectable } from "kysely";
import { uploadTicketSchema } from "../pushes/views.ts";
import {
  type AnalyzeRunsTable,
  RAW_ITEM_STATUSES,
  type RawItemsTable,
  RUN_STATUSES,
} from "./tables.ts";

/** CONTRACT.md: the kinds the summary stage tells apart. */
export const SUMMARY_KINDS = ["note", "todo", "event", "quote", "photo", "reference"] as const;
export type SummaryKind = typeof SUMMARY_KINDS[number];

export const summaryContentSchema = z.object({
  title: z.string(),
  summary: z.string().meta({ description: "1-2 sentences" }),
  keyPoints: z.array(z.string()),
  kind: z.enum(SUMMARY_KINDS),
  language: z.string().meta({ description: "BCP 47 language tag, e.g. en, de, zh" }),
  suggestedTemplate: z.string().meta({ description: "Name of the template that fits best" }),
}).meta({ id: "SummaryContent" });
export type SummaryContent = z.infer<typeof summaryContentSchema>;

export const attachmentSchema = z.object({
  fileId: z.uuid(),
  contentType: z.string(),
  sizeBytes: z.number().int().nullable(),
  filename: z.string().nullable(),
  uploaded: z.boolean().meta({
    description: "The picture is in storage (before confirm) or confirmed (after)",
  }),
}).meta({ id: "RawItemAttachment" });

export const rawItemSchema = z.object({
  id: z.uuid(),
  title: z.string().nullable(),
  text: z.string().nullable(),
  attachments: z.array(attachmentSchema),
  status: z.enum(RAW_ITEM_STATUSES),
  summary_content: summaryContentSchema.nullable(),
  error: z.string().nullable(),
  pushIds: z.array(z.uuid()),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "RawItem" });
export type RawItemView = z.infer<typeof rawItemSchema>;

/** The upload answer: each attachment carries its upload ticket. */
export const uploadedRawItemSchema = rawItemSchema.extend({
  attachments: z.array(attachmentSchema.extend({ upload: uploadTicketSchema })),
}).meta({ id: "UploadedRawItem" });

export const rawItemPageSchema = z.object({
  items: z.array(rawItemSchema),
  nextCursor: z.string().optional(),
  hasMore: z.boolean(),
}).meta({ id: "RawItemPage" });

const dayCounts = {
  uploaded: z.number().int(),
  summarized: z.number().int(),
  failed: z.number().int(),
  pushes: z.number().int(),
};

export const rawItemStatsSchema = z.object({
  from: z.string(),
  to: z.string(),
  totals: z.object(dayCounts),
  days: z.array(z.object({ date: z.string(), ...dayCounts })),
}).meta({ id: "RawItemStats" });

export const runStepSchema = z.object({
  tool: z.string(),
  input: z.unknown(),
  output: z.unknown().optional(),
  error: z.string().optional(),
}).meta({ id: "AnalyzeRunStep" });

export const analyzeRunSchema = z.object({
  id: z.uuid(),
  reason: z.enum(["MANUAL", "SCHEDULED"]),
  status: z.enum(RUN_STATUSES),
  model: z.string().nullable(),
  steps: z.array(runStepSchema),
  pushIds: z.array(z.uuid()),
  error: z.string().nullable().meta({ description: "Why the run failed (or is being retried)" }),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
}).meta({ id: "AnalyzeRun" });
export type AnalyzeRunView = z.infer<typeof analyzeRunSchema>;

export const analyzeRunPageSchema = z.object({
  items: z.array(analyzeRunSchema),
  nextCursor: z.string().optional(),
  hasMore: z.boolean(),
}).meta({ id: "AnalyzeRunPage" });

export const templateInfoSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  schema: z.record(z.string(), z.unknown()).meta({
    description: "JSON Schema (2020-12) of the template's variables",
  }),
}).meta({ id: "TemplateInfo" });

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** An attachment as stored, joined with its file record. */
export interface AttachmentRow {
  file_id: string;
  content_type: string;
  size_bytes: number | string | null;
  filename: string | null;
  status: "pending" | "confirmed";
}

/** The one mapping from an item row to the wire shape. */
export function toRawItem(
  row: Selectable<RawItemsTable>,
  attachments: Array<AttachmentRow & { uploaded?: boolean }>,
  pushIds: string[],
): RawItemView {
  return {
    id: row.id,
    title: row.title,
    text: row.text,
    attachments: attachments.map((a) => ({
      fileId: a.file_id,
      contentType: a.content_type,
      // bigint arrives as a string from postgres.js.
      sizeBytes: a.size_bytes === null ? null : Number(a.size_bytes),
      filename: a.filename,
      uploaded: a.uploaded ?? a.status === "confirmed",
    })),
    status: row.status,
    summary_content: (row.summary_content ?? null) as SummaryContent | null,
    error: row.error,
    pushIds,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The one mapping from a run row to the wire shape. */
export function toAnalyzeRun(row: Selectable<AnalyzeRunsTable>, pushIds: string[]) {
  return {
    id: row.id,
    reason: row.reason,
    status: row.status,
    model: row.model,
    steps: (Array.isArray(row.steps) ? row.steps : []) as AnalyzeRunView["steps"],
    pushIds,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  } satisfies AnalyzeRunView;
}
