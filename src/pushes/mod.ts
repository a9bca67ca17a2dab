/** The pushes domain's face (SPEC 4.2-4.6): pushes, uploads, and the render stage's queue. */
import type { ChangeFeed } from "../db/cache/feed.ts";
import type { DevicesService } from "../devices/service.ts";
import { defineDomain, queueOf } from "../domain.ts";
import type { Jobs } from "../jobs/types.ts";
import type { Log } from "../lib/log.ts";
import type { Db } from "../schema.ts";
import type { ObjectStore } from "../storage/object_store.ts";
import { userPrefixes } from "./keys.ts";
import { renderPushQueue } from "./queues.ts";
import { pushesRouter } from "./router.ts";
import { PushesService } from "./service.ts";

export const pushes = defineDomain({
  name: "pushes",
  router: pushesRouter,
  objectKeys: { userPrefixes },
  queues: [
    queueOf(
      renderPushQueue,
      (services) => (job, attempt) => services.pushRenderJob.handle(job, attempt),
      { concurrency: "pool" },
    ),
  ],
  /** The render job is built in `src/services.ts`: it takes targetless's reaction. */
  build: ({ db, devices, store, jobs, log, changes }: {
    db: Db;
    devices: DevicesService;
    store: ObjectStore;
    jobs: Jobs;
    log: Log;
    changes: ChangeFeed;
  }) => new PushesService(db, devices, store, jobs, log, changes),
});
