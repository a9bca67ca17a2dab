/** The pushes domain's face (SPEC 4.2-4.6): pushes, uploads, and the render stage's queue. */
import { defineDomain, queueOf } from "../../domain.ts";
import { userPrefixes } from "./keys.ts";
import { renderPushQueue } from "./queues.ts";
import { pushesRouter } from "./router.ts";
import { type PushesDeps, PushesService } from "./service.ts";

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
  build: (deps: PushesDeps) => new PushesService(deps),
});
