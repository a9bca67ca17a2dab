/**
 * What every procedure, raw route and job handler reaches as `services`: the infrastructure the
 * domains share, listed here, and the domains' own services, which each face adds in its folder
 * (declaration merging, as the tables add themselves to `DB`):
 *
 *     declare module "../../services.ts" {
 *       interface Services { billing: BillingService }
 *     }
 *
 * Types only: the faces reach it through the tRPC context and their job handlers, and
 * `src/build_services.ts`, which builds it, imports the faces, so this type must not live there.
 */
import type { Config } from "./config.ts";
import type { Db } from "./schema.ts";
import type { ChangeFeed } from "./infra/db/cache/feed.ts";
import type { Jobs } from "./infra/jobs/types.ts";
import type { Model } from "./infra/ai/model.ts";
import type { Renderer } from "./infra/render/types.ts";
import type { ObjectStore } from "./infra/storage/object_store.ts";

export interface Services {
  config: Config;
  db: Db;
  /** Invalidation of the request path's caches (src/infra/db/cache/). */
  changes: ChangeFeed;
  /** Background jobs (pg-boss). */
  jobs: Jobs;
  /** The render pool (Piscina). */
  renderer: Renderer;
  storage: ObjectStore;
  /** The AI model: Claude with ANTHROPIC_API_KEY, else the offline model. */
  model: Model;
}
