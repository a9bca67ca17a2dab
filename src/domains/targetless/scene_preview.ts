/**
 * Scene preview (an addition to SPEC 4.7, docs/decisions.md): a pasted Scene v1 document is
 * validated by the one normaliser and rendered in the pool at the size asked, answered as PNG
 * and stored nowhere. Pictures are drawn only from the caller's own confirmed files, as in a
 * rendition; any other `fileId` draws nothing.
 */
import { AppError } from "../../errors.ts";
import { normaliseScene, normaliseSceneEnvelope } from "../../infra/render/scene/normalise.ts";
import type { ColorMode, SceneData } from "../../infra/render/scene/types.ts";
import { toHttpError } from "../../infra/render/errors.ts";
import type { Renderer } from "../../infra/render/types.ts";
import type { TargetlessDeps } from "./deps.ts";
import { checkSize } from "./output_profile.ts";
import { MAX_SCENE_PICTURES, ownedPictures } from "./pictures.ts";
import { sceneFileIds } from "./views.ts";

/** Distinct pictures one preview may draw: each is read into memory for the render. */
export const MAX_PREVIEW_IMAGES = MAX_SCENE_PICTURES;

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
  async render(
    userId: string,
    request: ScenePreviewRequest,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
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
      }, { previewOf: userId, signal });
    } catch (error) {
      throw toHttpError(error);
    }
  }

  /** Picture bytes by file id: the caller's confirmed files only (others draw nothing). */
  private images(userId: string, ids: string[]): Promise<Record<string, Uint8Array>> {
    return ownedPictures(this.deps, userId, ids, MAX_SCENE_PICTURES);
  }
}
