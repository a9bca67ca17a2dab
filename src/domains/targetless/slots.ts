/**
 * The user's concurrent rendition slots (SPEC 8, TARGETLESS_MAX_CONCURRENT_RENDITIONS; issue 25
 * finding 4). An explicit `POST .../renditions` over the limit is refused with 429
 * (renditions.ts); the initial rendition of a new content cannot be refused (its content was
 * accepted), so it is stored `waiting` and started here once a slot is free: at its creation if
 * one is, else when a rendition of the user finishes (rendition_job.ts). Every caller holds the
 * user's advisory lock (`lockUserRenditions`), so across processes no more than the limit render
 * at once and the oldest waiting rendition starts first.
 */
import type { Trx } from "../../schema.ts";
import type { TargetlessDeps } from "./deps.ts";
import { renderRenditionQueue } from "./queues.ts";
import * as repo from "./repository.ts";

/** Sends the jobs of the user's waiting renditions that fit under the limit now. */
export async function startWaiting(deps: TargetlessDeps, trx: Trx, userId: string) {
  const ids = await repo.takeFreeSlots(trx, userId, deps.limits.maxConcurrentRenditions);
  for (const renditionId of ids) {
    await deps.jobs.send(renderRenditionQueue, { renditionId }, { trx });
  }
}
