/**
 * Reading presentations (SPEC 2.13, 4.7): one, or a page of them. A pure read: it re-signs the
 * stored files' URLs (renditions, Scene images, a display presentation's push image) and never
 * renders, publishes, enqueues or wakes a display.
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import { AppError, badRequest } from "../../errors.ts";
import { SCENE_PUSH_TEMPLATE } from "../pushes/service.ts";
import * as access from "../../infra/access/mod.ts";
import { isUuid } from "../../infra/lib/ids.ts";
import * as files from "../files/repository.ts";
import type { TargetlessDeps } from "./deps.ts";
import * as repo from "./repository.ts";
import type { PresentationRow } from "./repository.ts";
import type { Selectable } from "kysely";
import type { RenditionsTable } from "./tables.ts";
import {
  type PresentationView,
  READ_URL_TTL_SECONDS,
  type RenditionView,
  sceneFileIds,
  type SignedUrl,
  toPresentationView,
  toRenditionView,
} from "./views.ts";

/** What an owner check of this kind answers (src/infra/access/mod.ts). */
export const PRESENTATION = access.hidden(
  "presentation",
  "Presentation not found",
  "presentation_not_found",
);

/** SPEC 4.7 list parameters. */
export interface ListInput {
  scope?: "generated" | "display" | "all";
  state?: string;
  limit?: number;
  cursor?: string;
}

const DEFAULT_LIMIT = 20;

type RenditionRow = Selectable<RenditionsTable>;

/** The opaque cursor: the last item's id (UUID v7 ids sort by creation time). */
export function encodeCursor(id: string): string {
  return encodeBase64urlNoPadding(new TextEncoder().encode(id));
}

/** The id inside a cursor, or null when it is not one this service issued. */
export function decodeCursor(cursor: string): string | null {
  try {
    const id = new TextDecoder("utf-8", { fatal: true }).decode(
      decodeBase64urlIgnorePadding(cursor),
    );
    return isUuid(id) ? id : null;
  } catch {
    return null;
  }
}

export class PresentationsService {
  constructor(private readonly deps: TargetlessDeps) {}

  /** `GET {prefix}/presentations/{id}`: 404 `presentation_not_found` unless the caller's. */
  async get(userId: string, id: string): Promise<PresentationView> {
    const row = await repo.findPresentation(this.deps.db, userId, id);
    if (!row) throw presentationNotFound();
    return (await this.views([row]))[0];
  }

  /**
   * `POST {prefix}/presentations/{id}/deliveries`: the stored Scene becomes a push of one of the
   * caller's devices (PREPARE; the render job draws it for the device's panel). Another user's
   * device is 404 like an unknown one (CONTRACT.md).
   */
  async deliver(userId: string, id: string, deviceId: string): Promise<{ pushId: string }> {
    const row = await repo.findPresentation(this.deps.db, userId, id);
    if (!row) throw presentationNotFound();
    const scene = row.scene as { data?: unknown } | null;
    if (!scene?.data) throw new AppError("invalid_state", "The presentation has no Scene");
    try {
      await this.deps.devices.owned(userId, deviceId);
    } catch (error) {
      if (error instanceof AppError && error.status === 403) {
        throw new AppError("not_found", "Device not found");
      }
      throw error;
    }
    const push = await this.deps.pushes.create({
      userId,
      deviceId,
      title: "Scene",
      template: SCENE_PUSH_TEMPLATE,
      params: {
        scene: scene.data,
        mode: row.mode === "hardcode" ? "hardcode" : "auto",
        fileIds: sceneFileIds(row.scene),
      },
    });
    return { pushId: push.id };
  }

  /**
   * The PNG of a presentation's initial rendition once it is ready, else null (the MCP
   * `create_content` and `get_content` tools hand it to an assistant as image content).
   */
  async initialPng(userId: string, id: string): Promise<Uint8Array | null> {
    const row = await repo.findPresentation(this.deps.db, userId, id);
    if (!row) throw presentationNotFound();
    const own = (await repo.renditionsOf(this.deps.db, [row.id])).get(row.id) ?? [];
    const ready = own.find((r) => r.initial && r.state === "ready" && r.object_key);
    return ready ? await this.deps.store.get(ready.object_key!) : null;
  }

  /** `GET {prefix}/presentations`: newest first, `{items, nextCursor, hasMore}`. */
  async list(userId: string, input: ListInput) {
    const before = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    if (before === null) throw badRequest("cursor is malformed");
    const scope = input.scope ?? "generated";
    const limit = input.limit ?? DEFAULT_LIMIT;
    const rows = await repo.listPresentations(this.deps.db, userId, {
      kinds: scope === "all" ? ["generated", "display"] : [scope],
      state: input.state,
      before,
      limit,
    });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: await this.views(page),
      ...(hasMore && last ? { nextCursor: encodeCursor(last.id) } : {}),
      hasMore,
    };
  }

  /** Views of several rows, with their contents, renditions and signed URLs in a few queries. */
  async views(rows: PresentationRow[]): Promise<PresentationView[]> {
    const { db } = this.deps;
    const ids = rows.map((row) => row.id);
    const [contentIds, renditions] = await Promise.all([
      repo.contentIdsOf(db, ids),
      repo.renditionsOf(db, ids),
    ]);
    const views: PresentationView[] = [];
    for (const row of rows) {
      const sceneUrls = await this.sceneUrls(row);
      const own = renditions.get(row.id) ?? [];
      const renditionViews = await Promise.all(own.map((r) => this.renditionView(r)));
      const image = row.kind === "display" && row.push_render_prefix
        ? await this.sign(`${row.push_render_prefix}image.png`)
        : null;
      views.push(toPresentationView(row, {
        contentIds: contentIds.get(row.id) ?? [],
        renditions: renditionViews,
        sceneUrls,
        image,
      }));
    }
    return views;
  }

  /** A rendition with its PNG's signed URL when ready. */
  async renditionView(rendition: RenditionRow): Promise<RenditionView> {
    const signed = rendition.state === "ready" && rendition.object_key
      ? await this.sign(rendition.object_key)
      : null;
    return toRenditionView(rendition, signed);
  }

  /**
   * Signed URLs of the Scene's pictures: only confirmed files of the presentation's owner
   * (SPEC 2.11 "an owned asset file id"); anything else gets no URL.
   */
  private async sceneUrls(row: PresentationRow): Promise<Map<string, string>> {
    const urls = new Map<string, string>();
    if (row.kind !== "generated" || row.scene === null) return urls;
    const owned = await files.findFilesOfUser(this.deps.db, row.user_id, sceneFileIds(row.scene));
    for (const file of owned) {
      if (file.status === "confirmed") urls.set(file.id, (await this.sign(file.object_key)).url);
    }
    return urls;
  }

  private async sign(key: string): Promise<SignedUrl> {
    const expiresAt = new Date(Date.now() + READ_URL_TTL_SECONDS * 1000).toISOString();
    return { url: await this.deps.store.signedGetUrl(key, READ_URL_TTL_SECONDS), expiresAt };
  }
}

/** SPEC 7: a presentation that is missing or not the caller's. */
export function presentationNotFound(): AppError {
  return access.missing(PRESENTATION);
}
