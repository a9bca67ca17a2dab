/**
 * The content pipeline's face (SPEC 4.6): raw items, templates, and its queues. Summaries (their
 * pictures go through the pool), analyze runs (one per user at a time, the queue's policy), and
 * the ANALYZE_SCHEDULE tick.
 */
import type { Config } from "../../config.ts";
import type { DevicesService } from "../devices/service.ts";
import { defineDomain, queueOf } from "../../domain.ts";
import type { Jobs } from "../../infra/jobs/types.ts";
import type { Log } from "../../infra/lib/log.ts";
import type { Model } from "../../infra/ai/model.ts";
import type { PushesService } from "../pushes/service.ts";
import type { Renderer } from "../../infra/render/types.ts";
import type { Db } from "../../schema.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import { AnalyzeService } from "./analyze_service.ts";
import { ContentService } from "./service.ts";
import { SummarizeJob } from "./summarize_job.ts";
import { TemplatesService } from "./templates_service.ts";
import { downloadFile } from "./download_file.ts";
import { previewTemplate } from "./preview_template.ts";
import { analyzeQueue, analyzeScheduleQueue, summarizeQueue } from "./queues.ts";
import { contentRouter } from "./router.ts";

/** What the content pipeline is built on. */
export interface ContentDeps {
  db: Db;
  store: ObjectStore;
  jobs: Jobs;
  log: Log;
  model: Model;
  renderer: Renderer;
  /** The analyze agent's pushes go through `pushes.create` on the user's devices. */
  devices: DevicesService;
  pushes: PushesService;
  limits: Config["analyze"];
}

export const content = defineDomain({
  name: "content",
  router: contentRouter,
  rawRoutes: [downloadFile, previewTemplate],
  queues: [
    queueOf(
      summarizeQueue,
      (services) => (job, attempt) => services.summarizeJob.handle(job, attempt),
      { concurrency: 2 },
    ),
    queueOf(
      analyzeQueue,
      (services) => (job, attempt) => services.analyze.handle(job, attempt),
      { concurrency: 2 },
    ),
    queueOf(analyzeScheduleQueue, (services) => async () => {
      await services.analyze.scheduled();
    }, { schedule: (config) => ({ cron: config.analyze.schedule, data: {} }) }),
  ],
  /**
   * Raw items enqueue their summary in the confirm transaction; the analyze agent's pushes go
   * through `pushes.create` (render enqueued in the same transaction) on the user's devices.
   */
  build(deps: ContentDeps) {
    const { db, store, jobs, log, model, renderer, limits } = deps;
    const content = new ContentService({ db, store, jobs, log });
    return {
      content,
      analyze: new AnalyzeService({
        db,
        jobs,
        model,
        devices: deps.devices,
        pushes: deps.pushes,
        maxSteps: limits.maxSteps,
        tokenBudget: limits.tokenBudget,
        log,
      }),
      summarizeJob: new SummarizeJob({ content, renderer, model, log }),
      templates: new TemplatesService(content, renderer),
    };
  },
});
