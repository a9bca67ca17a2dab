/** The content pipeline's background work (SPEC 4.6 summary and analyze stages). */
import { z } from "zod";
import { defineQueue } from "../../infra/jobs/types.ts";

/** The summary stage of one raw item; sent in the confirm transaction. */
export const summarizeQueue = defineQueue({
  name: "summarize",
  schema: z.object({ rawItemId: z.uuid() }),
  retry: { limit: 4, delaySeconds: 10, maxDelaySeconds: 600 },
});

/**
 * One analyze run. `exclusive` with `singletonKey` = the user id: at most one run per user is
 * queued, waiting for a retry or running (CONTRACT.md), so a burst of triggers stacks nothing.
 */
export const analyzeQueue = defineQueue({
  name: "analyze",
  schema: z.object({ runId: z.uuid(), userId: z.uuid() }),
  policy: "exclusive",
  retry: { limit: 3, delaySeconds: 30, maxDelaySeconds: 600 },
  // An agent run makes up to ANALYZE_MAX_STEPS model calls of up to two minutes each.
  expireInSeconds: 1800,
});

/**
 * The `ANALYZE_SCHEDULE` tick (a cron job carries one fixed payload): it starts a SCHEDULED run
 * for every user with material summarised since their last run.
 */
export const analyzeScheduleQueue = defineQueue({
  name: "analyze-schedule",
  schema: z.object({}),
  policy: "singleton",
  retry: { limit: 2, delaySeconds: 30, maxDelaySeconds: 120 },
});
