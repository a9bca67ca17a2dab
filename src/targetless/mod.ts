/**
 * The targetless domain (SPEC 4.7) as the rest of the service sees it: its services, its two job
 * handlers, its reaction to a push render that failed for good, and its account-deletion step.
 */
import type { Model } from "../ai/model.ts";
import type { Renderer } from "../render/types.ts";
import type { Trx } from "../schema.ts";
import { ContentsService } from "./contents.ts";
import type { TargetlessDeps } from "./deps.ts";
import { GenerateSceneJob } from "./generate_job.ts";
import { LinkFetcher } from "./links/fetch_link.ts";
import { PresentationsService } from "./presentations.ts";
import { RenditionJob } from "./rendition_job.ts";
import { RenditionsService } from "./renditions.ts";
import { ScenePreview } from "./scene_preview.ts";
import * as repo from "./repository.ts";

export type { TargetlessDeps } from "./deps.ts";

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

/** Builds the targetless services on their dependencies. */
export function createTargetless(
  deps: TargetlessDeps,
  ai: { model: Model; renderer: Renderer },
): Targetless {
  const presentations = new PresentationsService(deps);
  return {
    contents: new ContentsService(deps),
    presentations,
    renditions: new RenditionsService(deps, presentations),
    scenePreview: new ScenePreview(deps, ai.renderer),
    generateJob: new GenerateSceneJob(deps, {
      model: ai.model,
      // Public addresses only: no setting can widen what a link may reach.
      links: new LinkFetcher(),
      // Page text is read in the worker pool, off the request loop (issue 25).
      pages: (task) => ai.renderer.runText(task),
      log: deps.log,
    }),
    renditionJob: new RenditionJob(deps, ai.renderer, { log: deps.log }),
    async pushFailedForGood(pushId, message) {
      await repo.failDisplayPresentation(
        deps.db,
        pushId,
        repo.json({ code: "render_failed", message }),
      );
    },
    deleteAllOf: (trx, userId) => repo.deleteAllOf(trx, userId),
  };
}
