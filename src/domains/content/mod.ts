/**
 * The content pipeline's face (SPEC 4.6): raw items, templates, and its queues. Summaries (their
 * pictures go through the pool), analyze runs (one per user at a time, the queue's policy), and
 * the ANALYZE_SCHEDULE tick.
 */
import { buildWith, defineDomain, queueOf } from "../../face.ts";
import type { ModelResponse } from "../../infra/ai/model.ts";
import { AGENT_TASK, AnalyzeService } from "./analyze_service.ts";
import { ContentService } from "./service.ts";
import { SummarizeJob } from "./summarize_job.ts";
import { SUMMARY_TASK } from "./summary_prompt.ts";
import { offlineAgent } from "./offline_agent.ts";
import { TemplatesService } from "./templates_service.ts";
import { downloadFile } from "./download_file.ts";
import { previewTemplate } from "./preview_template.ts";
import { analyzeQueue, analyzeScheduleQueue, summarizeQueue } from "./queues.ts";
import { contentRouter } from "./router.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { ContentTables } from "./tables.ts";

declare module "../../services.ts" {
  interface Services {
    /** Raw items and their files (SPEC 4.6). */
    content: ContentService;
    /** The handler of `summarizeQueue`. */
    summarizeJob: SummarizeJob;
    /** Analyze runs: trigger, schedule, the agent (handler of `analyzeQueue`). */
    analyze: AnalyzeService;
    /** Push templates: list and preview. */
    templates: TemplatesService;
  }
}

export const content = defineDomain({
  name: "content",
  tags: {
    content: "Raw items (notes and pictures), their summaries and files (SPEC 4.6)",
    analyze: "The analyze agent: trigger a run, read what it did (SPEC 4.6)",
    templates: "Push templates, their variables' schemas and previews (SPEC 4.6)",
  },
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
  modelTasks: ({ config, renderer }) => ({
    // Text heuristics and measured pictures, run in the worker pool: heuristics over a
    // 20,000-character note stay off the loop.
    [SUMMARY_TASK]: {
      offline: async (request) =>
        await renderer.runText({ op: "summary", request }) as ModelResponse,
      model: config.anthropic.summaryModel,
    },
    // The push agent.
    [AGENT_TASK]: { offline: offlineAgent },
  }),
  hooks: {
    // SPEC 4.1: raw upload items, their files and the analyze runs (render tasks) go too.
    accountDeletion: ({ services }) => (trx, userId) => services.content.deleteAllOf(trx, userId),
  },
  /**
   * Raw items enqueue their summary in the confirm transaction; the analyze agent's pushes go
   * through `pushes.create` (render enqueued in the same transaction) on the user's devices.
   */
  build: buildWith(["devices", "pushes"], (context) => {
    const { db, storage: store, jobs, log, model, renderer, config, services } = context;
    const content = new ContentService({ db, store, jobs, log });
    return {
      content,
      analyze: new AnalyzeService({
        db,
        jobs,
        model,
        devices: services.devices,
        pushes: services.pushes,
        maxSteps: config.analyze.maxSteps,
        tokenBudget: config.analyze.tokenBudget,
        log,
      }),
      summarizeJob: new SummarizeJob({ content, renderer, model, log }),
      templates: new TemplatesService(content, renderer),
    };
  }),
});
