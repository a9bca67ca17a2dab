/**
 * The targetless domain's face (SPEC 4.7): its procedures on both versioned surfaces, the Scene
 * preview's raw routes, its two queues, and the build of its services: the services, the two
 * job handlers, its reaction to a push render that failed for good, its account-deletion step.
 */
import type { Model } from "../../infra/ai/model.ts";
import { defineDomain, queueOf } from "../../domain.ts";
import type { Renderer } from "../../infra/render/types.ts";
import { APP_SURFACE, SDK_SURFACE } from "../../infra/trpc/surfaces.ts";
import { ContentsService } from "./contents_service.ts";
import type { TargetlessDeps } from "./deps.ts";
import { GenerateSceneJob } from "./generate_job.ts";
import { userPrefixes } from "./keys.ts";
import { LinkFetcher } from "./links/fetch_link.ts";
import { PresentationsService } from "./presentations_service.ts";
import { previewScene } from "./preview_scene.ts";
import { generateSceneQueue, renderRenditionQueue } from "./queues.ts";
import { RenditionJob } from "./rendition_job.ts";
import { RenditionsService } from "./renditions_service.ts";
import { targetlessProcedures } from "./router.ts";
import { ScenePreview } from "./scene_preview.ts";
import * as repo from "./repository.ts";
import type { Targetless } from "./service.ts";

export const targetless = defineDomain({
  name: "targetless",
  versioned: targetlessProcedures,
  rawRoutes: [previewScene(APP_SURFACE), previewScene(SDK_SURFACE)],
  objectKeys: { userPrefixes },
  // Scene generation waits mostly on links and the model; renditions on the pool.
  queues: [
    queueOf(
      generateSceneQueue,
      (services) => (job, attempt) => services.targetless.generateJob.handle(job, attempt),
      { concurrency: 2 },
    ),
    queueOf(
      renderRenditionQueue,
      (services) => (job, attempt) => services.targetless.renditionJob.handle(job, attempt),
      { concurrency: "pool" },
    ),
  ],
  /** Builds the targetless services on their dependencies. */
  build(deps: TargetlessDeps & { model: Model; renderer: Renderer }): Targetless {
    const presentations = new PresentationsService(deps);
    return {
      contents: new ContentsService(deps),
      presentations,
      renditions: new RenditionsService(deps, presentations),
      scenePreview: new ScenePreview(deps, deps.renderer),
      generateJob: new GenerateSceneJob(deps, {
        model: deps.model,
        // Public addresses only: no setting can widen what a link may reach.
        links: new LinkFetcher(),
        // Page text is read in the worker pool, off the request loop (issue 25).
        pages: (task) => deps.renderer.runText(task),
        log: deps.log,
      }),
      renditionJob: new RenditionJob(deps, deps.renderer, { log: deps.log }),
      async pushFailedForGood(pushId, message) {
        await repo.failDisplayPresentation(
          deps.db,
          pushId,
          repo.json({ code: "render_failed", message }),
        );
      },
      deleteAllOf: (trx, userId) => repo.deleteAllOf(trx, userId),
    };
  },
});
