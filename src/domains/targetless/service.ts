/**
 * The targetless domain's service as the rest of the service sees it (SPEC 4.7): its services,
 * its two job handlers, its reaction to a push render that failed for good, and its
 * account-deletion step. Built by the domain's face (`mod.ts`).
 */
import type { Trx } from "../../schema.ts";
import type { ContentsService } from "./contents_service.ts";
import type { GenerateSceneJob } from "./generate_job.ts";
import type { PresentationsService } from "./presentations_service.ts";
import type { RenditionJob } from "./rendition_job.ts";
import type { RenditionsService } from "./renditions_service.ts";
import type { ScenePreview } from "./scene_preview.ts";

export interface Targetless {
  contents: ContentsService;
  presentations: PresentationsService;
  renditions: RenditionsService;
  /** Renders a pasted Scene without storing it (the playground, `scenes/preview`). */
  scenePreview: ScenePreview;
  /** The handler of `generateSceneQueue`. */
  generateJob: GenerateSceneJob;
  /** The handler of `renderRenditionQueue`. */
  renditionJob: RenditionJob;
  /** CONTRACT.md: a display presentation is `failed` when its push's render failed for good. */
  pushFailedForGood(pushId: string, message: string): Promise<void>;
  /** SPEC 4.1: the user's contents, presentations and renditions go with the account. */
  deleteAllOf(trx: Trx, userId: string): Promise<void>;
}
