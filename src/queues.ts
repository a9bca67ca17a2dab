/**
 * Every background queue of the service, declared by its domain. `createJobs` creates each one
 * at start; a new queue is its domain's `defineQueue` plus one line here.
 */
import type { QueueDefinition } from "./jobs/types.ts";
import { renderPushQueue } from "./pushes/queues.ts";
import { analyzeQueue, analyzeScheduleQueue, summarizeQueue } from "./content/queues.ts";
import { generateSceneQueue, renderRenditionQueue } from "./targetless/queues.ts";
import { deviceMessageQueue } from "./mqtt/outbox.ts";

// deno-lint-ignore no-explicit-any -- queues of different payload types
export const QUEUES: QueueDefinition<any>[] = [
  renderPushQueue,
  summarizeQueue,
  analyzeQueue,
  analyzeScheduleQueue,
  generateSceneQueue,
  renderRenditionQueue,
  deviceMessageQueue,
];
