/**
 * The wire shapes of targetless contents, presentations and renditions (SPEC 2.10-2.13,
 * CONTRACT.md "Targetless contents") and the one mapping from rows to them. Signed URLs are made
 * by the caller and passed in, so a view is a pure function of rows and URLs.
 */
import { z } from "zod";
import type { Selectable } from "kysely";
import { SCENE_MEDIA_TYPE } from "../../infra/render/scene/types.ts";
import { uploadTicketSchema } from "../pushes/views.ts";
import type { UploadTicketView } from "../files/uploads.ts";
import { COLOR_MODES, FORMATS } from "./output_profile.ts";
import type { PresentationRow } from "./repository.ts";
import type { Problem, RenditionsTable, StoredAsset, TargetlessContentsTable } from "./tables.ts";

/** SPEC 8: signed read URLs live 15 minutes. */
export const READ_URL_TTL_SECONDS = 15 * 60;

/** An id in a response (validated where it came in; documented as a UUID). */
const id = z.string().meta({ format: "uuid" });

export const CONTENT_STATES = ["uploading", "processing", "ready", "failed"] as const;
/** Every state a presentation shows (SPEC 2.13): targetless and display-bound. */
export const PRESENTATION_STATES = [
  "preparing",
  "ready",
  "failed",
  "queued",
  "published",
  "confirmed",
  "expired",
] as const;

export const problemSchema = z.object({
  code: z.string(),
  message: z.string(),
}).meta({ id: "Problem", description: "Why something failed (SPEC 2.12 problem object)" });

export const outputProfileSchema = z.object({
  formats: z.array(z.enum(FORMATS)),
  preset: z.string().nullable(),
  viewport: z.object({ width: z.number().int(), height: z.number().int() }),
  colorMode: z.enum(COLOR_MODES),
}).meta({ id: "OutputProfile" });

const assetSchema = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("link"), url: z.string() }),
  z.object({
    type: z.literal("image"),
    contentType: z.enum(["image/png", "image/jpeg"]),
    sizeBytes: z.number().int(),
    filename: z.string().optional(),
    fileId: id,
    upload: uploadTicketSchema.nullable().meta({
      description: "Presigned POST ticket while the file is not uploaded and confirmed, else null",
    }),
  }),
]);

export const contentSchema = z.object({
  id: id,
  mode: z.enum(["auto", "hardcode", "manual"]),
  intent: z.string(),
  title: z.string(),
  output: outputProfileSchema.nullable(),
  state: z.enum(CONTENT_STATES),
  presentationIds: z.array(id),
  assets: z.array(assetSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "TargetlessContent" });

export const renditionSchema = z.object({
  id: id,
  mediaType: z.literal("image/png"),
  format: z.literal("png"),
  width: z.number().int(),
  height: z.number().int(),
  colorMode: z.enum(COLOR_MODES),
  state: z.enum(["preparing", "ready", "failed"]),
  url: z.string().nullable(),
  expiresAt: z.string().nullable(),
  failure: problemSchema.nullable(),
  updatedAt: z.string(),
}).meta({ id: "Rendition" });

export const sceneSchema = z.object({
  mediaType: z.literal(SCENE_MEDIA_TYPE),
  version: z.literal(1),
  data: z.record(z.string(), z.unknown()).meta({
    description: "Scene v1 data; image elements carry a signed `url` instead of `fileId`",
  }),
}).meta({ id: "Scene" });

export const presentationSchema = z.object({
  id: id,
  displayId: id.nullable(),
  contentIds: z.array(id),
  mode: z.enum(["auto", "hardcode", "manual"]),
  state: z.enum(PRESENTATION_STATES),
  output: outputProfileSchema.nullable(),
  scene: sceneSchema.nullable(),
  renditions: z.array(renditionSchema),
  image: z.object({
    url: z.string(),
    mediaType: z.literal("image/png"),
    width: z.literal(800),
    height: z.literal(480),
    expiresAt: z.string(),
  }).nullable(),
  failure: problemSchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "Presentation" });

export const presentationPageSchema = z.object({
  items: z.array(presentationSchema),
  nextCursor: z.string().optional(),
  hasMore: z.boolean(),
}).meta({ id: "PresentationPage" });

export type ContentView = z.infer<typeof contentSchema>;
export type PresentationView = z.infer<typeof presentationSchema>;
export type RenditionView = z.infer<typeof renditionSchema>;

/** A signed URL and when it stops working. */
export interface SignedUrl {
  url: string;
  expiresAt: string;
}

/** A content as the API shows it; `tickets` holds the upload tickets of still-pending files. */
export function toContentView(
  row: Selectable<TargetlessContentsTable>,
  presentationIds: string[],
  tickets: ReadonlyMap<string, UploadTicketView>,
  state: ContentView["state"] = row.state,
): ContentView {
  return {
    id: row.id,
    mode: row.mode,
    intent: row.intent,
    title: row.title,
    output: row.output,
    state,
    presentationIds,
    assets: row.assets.map((asset: StoredAsset) =>
      asset.type === "image" ? { ...asset, upload: tickets.get(asset.fileId) ?? null } : asset
    ),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** A rendition; `signed` is its PNG's URL when ready. */
export function toRenditionView(
  row: Selectable<RenditionsTable>,
  signed: SignedUrl | null,
): RenditionView {
  const ready = row.state === "ready" && signed !== null;
  return {
    id: row.id,
    mediaType: "image/png",
    format: "png",
    width: row.width,
    height: row.height,
    colorMode: row.color_mode,
    state: row.state,
    url: ready ? signed.url : null,
    expiresAt: ready ? signed.expiresAt : null,
    failure: row.state === "failed" ? (row.failure ?? { code: "failed", message: "" }) : null,
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The stored Scene envelope with each image's `fileId` replaced by a signed `url` (SPEC 2.11);
 * an image whose file is not the user's (or is gone) gets `url: null`.
 */
export function sceneWithUrls(scene: unknown, urls: ReadonlyMap<string, string>) {
  const envelope = scene as { data: { elements: Array<Record<string, unknown>> } };
  const elements = envelope.data.elements.map((element) => {
    const props = element.properties as Record<string, unknown> | undefined;
    if (element.type !== "image" || !props || typeof props.fileId !== "string") return element;
    const { fileId, ...rest } = props;
    return { ...element, properties: { ...rest, url: urls.get(fileId) ?? null } };
  });
  return { ...envelope, data: { ...envelope.data, elements } } as unknown as z.infer<
    typeof sceneSchema
  >;
}

/** The file ids a stored Scene's image elements name. */
export function sceneFileIds(scene: unknown): string[] {
  const elements = (scene as { data?: { elements?: unknown[] } } | null)?.data?.elements ?? [];
  const ids = new Set<string>();
  for (const element of elements as Array<Record<string, unknown>>) {
    const fileId = (element?.properties as Record<string, unknown> | undefined)?.fileId;
    if (element?.type === "image" && typeof fileId === "string") ids.add(fileId);
  }
  return [...ids];
}

/** Everything a presentation view needs beyond its row. */
export interface PresentationParts {
  contentIds: string[];
  renditions: RenditionView[];
  sceneUrls: ReadonlyMap<string, string>;
  image: SignedUrl | null;
}

/** A presentation as the API shows it. */
export function toPresentationView(
  row: PresentationRow,
  parts: PresentationParts,
): PresentationView {
  const display = row.kind === "display";
  return {
    id: row.id,
    displayId: row.display_id,
    contentIds: parts.contentIds,
    mode: row.mode,
    state: row.wire_state as PresentationView["state"],
    output: display ? null : row.output,
    scene: display || row.scene === null ? null : sceneWithUrls(row.scene, parts.sceneUrls),
    renditions: display ? [] : parts.renditions,
    image: display && parts.image
      ? { ...parts.image, mediaType: "image/png", width: 800, height: 480 }
      : null,
    failure: (row.failure as Problem | null) ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
