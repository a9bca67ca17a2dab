/** What the targetless services need from the rest of the service, passed in when built. */
import type { Config } from "../../config.ts";
import type { Db } from "../../schema.ts";
import type { Jobs } from "../../infra/jobs/types.ts";
import type { Log } from "../../infra/lib/log.ts";
import type { ObjectStore } from "../../infra/storage/object_store.ts";
import type { BillingService } from "../billing/service.ts";
import type { DevicesService } from "../devices/service.ts";
import type { PushesService } from "../pushes/service.ts";
import type { EventSink } from "../webhooks/events.ts";

export interface TargetlessDeps {
  db: Db;
  store: ObjectStore;
  jobs: Jobs;
  /** SPEC 8 settings (0 or unset already mean the default). */
  limits: Config["targetless"];
  /** The entitlement gate of `mode=auto` (SPEC 7). */
  billing: Pick<BillingService, "requirePro">;
  /** Owner checks of `displayId` (404 unknown, 403 not the caller's). */
  devices: Pick<DevicesService, "owned">;
  /** `manual` contents become pushes. */
  pushes: Pick<PushesService, "create">;
  log: Log;
  /** Webhook events (`content.*`, `presentation.ready`), emitted in the change's transaction. */
  events?: EventSink;
}
