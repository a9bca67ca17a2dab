/**
 * The content pipeline's face (SPEC 4.6): raw items, templates, and its queues. Summaries (their
 * pictures go through the pool), analyze runs (one per user at a time, the queue's policy), and
 * the ANALYZE_SCHEDULE tick.
 */
import { defineDomain, queueOf } from "../domain.ts";
import { downloadFile } from "./download_file.ts";
import { previewTemplate } from "./preview_template.ts";
import { analyzeQueue, analyzeScheduleQueue, summarizeQueue } from "./queues.ts";
import { contentRouter } from "./router.ts";

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
});
