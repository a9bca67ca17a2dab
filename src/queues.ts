/**
 * Every background queue of the service: the domains' (each declared in its `mod.ts`, in the
 * order of `src/domains.ts`) and the device-message outbox's. `createJobs` creates each one
 * at start.
 */
import type { QueueDefinition } from "./infra/jobs/types.ts";
import { DOMAIN_QUEUES } from "./domains.ts";
import { deviceMessageQueue } from "./infra/mqtt/outbox.ts";

// deno-lint-ignore no-explicit-any -- queues of different payload types
export const QUEUES: QueueDefinition<any>[] = [
  ...DOMAIN_QUEUES.map((entry) => entry.queue),
  deviceMessageQueue,
];
