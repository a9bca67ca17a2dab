/**
 * The targetless domain's face (SPEC 4.7): its procedures on both versioned surfaces, the Scene
 * preview's raw routes, its two queues, and the build of its services: the services, the two
 * job handlers, its reaction to a push render that failed for good, its account-deletion step.
 */
import { buildWith, defineDomain, queueOf } from "../../face.ts";
import { APP_SURFACE, SDK_SURFACE } from "../../infra/trpc/surfaces.ts";
import { ContentsService } from "./contents_service.ts";
import type { TargetlessDeps } from "./deps.ts";
import { GenerateSceneJob } from "./generate_job.ts";
import { userPrefixes } from "./keys.ts";
import { LinkFetcher } from "../../infra/outbound/fetch_link.ts";
import { PresentationsService } from "./presentations_service.ts";
import { previewScene } from "./preview_scene.ts";
import { generateSceneQueue, renderRenditionQueue } from "./queues.ts";
import { RenditionJob } from "./rendition_job.ts";
import { RenditionsService } from "./renditions_service.ts";
import { targetlessProcedures } from "./router.ts";
import { ScenePreview } from "./scene_preview.ts";
import { SCENE_TASK } from "./scene_prompt.ts";
import { offlineSceneTask } from "./offline_scene.ts";
import * as repo from "./repository.ts";
import type { Targetless } from "./service.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { TargetlessTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Targetless contents, presentations and renditions (SPEC 4.7) and their jobs. */
    targetless: Targetless;
  }
}

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
  // `auto` without a key: a plain layout of the assets that fits the viewport.
  modelTasks: () => ({ [SCENE_TASK]: { offline: offlineSceneTask } }),
  hooks: {
    // SPEC 4.1: the user's contents, presentations and renditions go with the account.
    accountDeletion: ({ services }) => (trx, userId) =>
      services.targetless.deleteAllOf(trx, userId),
    // A push whose render failed for good fails its display presentation.
    pushFailedForGood: ({ services }) => (push, message) =>
      services.targetless.pushFailedForGood(push.id, message),
  },
  /**
   * `auto` is gated by the plan (billing), `manual` checks the display's owner (devices) and
   * becomes a push (pushes); events go to the webhooks. Scenes and renditions render in the
   * pool; links are fetched by its own SSRF-safe fetcher.
   */
  build: buildWith(["billing", "devices", "pushes", "webhooks"], (context) => {
    const { services, renderer, model } = context;
    const deps: TargetlessDeps = {
      db: context.db,
      store: context.storage,
      jobs: context.jobs,
      limits: context.config.targetless,
      billing: services.billing,
      devices: services.devices,
      pushes: services.pushes,
      log: context.log,
      events: services.webhooks,
    };
    const presentations = new PresentationsService(deps);
    const targetless: Targetless = {
      contents: new ContentsService(deps),
      presentations,
      renditions: new RenditionsService(deps, presentations),
      scenePreview: new ScenePreview(deps, renderer),
      generateJob: new GenerateSceneJob(deps, {
        model,
        // Public addresses only: no setting can widen what a link may reach.
        links: new LinkFetcher(),
        // Page text is read in the worker pool, off the request loop (issue 25).
        pages: (task) => renderer.runText(task),
        log: deps.log,
      }),
      renditionJob: new RenditionJob(deps, renderer, { log: deps.log }),
      async pushFailedForGood(pushId, message) {
        await repo.failDisplayPresentation(
          deps.db,
          pushId,
          repo.json({ code: "render_failed", message }),
        );
      },
      deleteAllOf: (trx, userId) => repo.deleteAllOf(trx, userId),
    };
    return { targetless };
  }),
});
