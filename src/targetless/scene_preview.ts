/**
 * Scene preview (an addition to SPEC 4.7, docs/decisions.md): a pasted Scene v1 document is
 * validated by the one normaliser and rendered in the pool at the size asked, answered as PNG
 * and stored nowhere. Pictures are drawn only from the caller's own confirmed files, as in a
 * rendition; any other `fileId` draws nothing.
 */
import { AppError } from "../errors.ts";
import * as files from "../files/repository.ts";
import { normaliseScene, normaliseSceneEnvelope } from "../render/scene/normalise.ts";
import type { ColorMode, SceneData } from "../render/scene/types.ts";
import { toHttpError } from "../render/errors.ts";
import type { Renderer } from "../render/types.ts";
import type { TargetlessDeps } from "./deps.ts";
import { checkSize } from "./output_profile.ts";
import { sceneFileIds } from "./views.ts";

/** Distinct pictures one preview may draw: each is read into memory for the render. */
export const MAX_PREVIEW_IMAGES = 16;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the preview endpoint takes. */
export interface ScenePreviewRequest {
  /** The envelope `{mediaType, version, data}` or its `data`. */
  scene: unknown;
  width?: number;
  height?: number;
  colorMode?: ColorMode;
}

/** The Scene's normalised data, or a 400 with the normaliser's message. */
export function previewSceneData(scene: unknown, maxPixels: number): SceneData {
  const isEnvelope = typeof scene === "object" && scene !== null && "mediaType" in scene;
  const result = isEnvelope
    ? normaliseSceneEnvelope(scene, { maxPixels })
    : normaliseScene(scene, { maxPixels });
  if (!result.ok) throw new AppError("invalid_request", result.message);
  return "envelope" in result ? result.envelope.data : result.scene;
}

/** Renders pasted Scenes for the playground and for anyone checking a Scene before using it. */
export class ScenePreview {
  constructor(private readonly deps: TargetlessDeps, private readonly renderer: Renderer) {}

  /** The PNG; 400 for an invalid Scene or size, 413/415 for a picture, 503 when the pool is full. */
  async render(userId: string, request: ScenePreviewRequest): Promise<Uint8Array> {
    const maxPixels = this.deps.limits.maxRenditionPixels;
    const data = previewSceneData(request.scene, maxPixels);
    const width = request.width ?? data.viewport.width;
    const height = request.height ?? data.viewport.height;
    const problem = checkSize({ width, height }, maxPixels, "Preview");
    if (problem) throw new AppError("invalid_request", problem);
    const ids = sceneFileIds({ data });
    if (ids.length > MAX_PREVIEW_IMAGES) {
      throw new AppError(
        "invalid_request",
        `A preview draws at most ${MAX_PREVIEW_IMAGES} pictures; this Scene names ${ids.length}`,
      );
    }
    const images = await this.images(userId, ids);
    try {
      return await this.renderer.renderScene({
        scene: data,
        images,
        width,
        height,
        colorMode: request.colorMode ?? "color",
        mode: "auto",
        maxPixels,
      });
    } catch (error) {
      throw toHttpError(error);
    }
  }

  /** Picture bytes by file id: the caller's confirmed files only (others draw nothing). */
  private async images(userId: string, ids: string[]): Promise<Record<string, Uint8Array>> {
    // File ids are UUIDs; any other string names no file (and must not reach a uuid column).
    const candidates = ids.filter((id) => UUID.test(id));
    const out: Record<string, Uint8Array> = {};
    for (const file of await files.findFilesOfUser(this.deps.db, userId, candidates)) {
      if (file.status !== "confirmed") continue;
      const bytes = await this.deps.store.get(file.object_key);
      if (bytes) out[file.id] = bytes;
    }
    return out;
  }
}
