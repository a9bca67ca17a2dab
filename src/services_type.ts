/**
 * What every procedure, raw route and job handler reaches as `services`: the built services of
 * the domains and the infrastructure they share. Types only: the domains' faces (`mod.ts`) reach
 * it through the tRPC context and their job handlers, and `src/services.ts`, which builds it,
 * imports the faces, so this type must not live with the builder.
 */
import type { Config } from "./config.ts";
import type { Db } from "./schema.ts";
import type { Authenticate } from "./caller.ts";
import type { ChangeFeed } from "./infra/db/cache/feed.ts";
import type { Jobs } from "./infra/jobs/types.ts";
import type { Renderer } from "./infra/render/types.ts";
import type { ObjectStore } from "./infra/storage/object_store.ts";
import type { AccountsService } from "./domains/accounts/service.ts";
import type { AccountDeletion } from "./domains/accounts/deletion_service.ts";
import type { PatsService } from "./domains/pats/service.ts";
import type { BillingService } from "./domains/billing/service.ts";
import type { OauthService } from "./domains/oauth/service.ts";
import type { Factory } from "./domains/factory/service.ts";
import type { BindingService } from "./domains/binding/service.ts";
import type { DevicesService } from "./domains/devices/service.ts";
import type { DisplaysService } from "./domains/displays/service.ts";
import type { PushesService } from "./domains/pushes/service.ts";
import type { PushRenderJob } from "./domains/pushes/render_job.ts";
import type { Model } from "./infra/ai/model.ts";
import type { ContentService } from "./domains/content/service.ts";
import type { SummarizeJob } from "./domains/content/summarize_job.ts";
import type { AnalyzeService } from "./domains/content/analyze_service.ts";
import type { TemplatesService } from "./domains/content/templates_service.ts";
import type { Targetless } from "./domains/targetless/service.ts";
import type { FirmwareUpdates } from "./domains/firmware/service.ts";
import type { ButtonActions } from "./domains/buttons/service.ts";
import type { WebhooksService } from "./domains/webhooks/service.ts";
import type { OfflineSweep } from "./domains/webhooks/sweep.ts";

export interface Services {
  config: Config;
  db: Db;
  /** Invalidation of the request path's caches (src/infra/db/cache/). */
  changes: ChangeFeed;
  /** The one authentication check of every user endpoint. */
  auth: Authenticate;
  accounts: AccountsService;
  accountDeletion: AccountDeletion;
  pats: PatsService;
  billing: BillingService;
  oauth: OauthService;
  factory: Factory;
  binding: BindingService;
  /** Background jobs (pg-boss). */
  jobs: Jobs;
  /** The render pool (Piscina). */
  renderer: Renderer;
  storage: ObjectStore;
  devices: DevicesService;
  pushes: PushesService;
  /** Displays polling with TRMNL's protocol: setup, polls, claims. */
  displays: DisplaysService;
  /** The handler of `renderPushQueue`, registered at start-up. */
  pushRenderJob: PushRenderJob;
  /** The AI model: Claude with ANTHROPIC_API_KEY, else the offline model. */
  model: Model;
  /** Raw items and their files (SPEC 4.6). */
  content: ContentService;
  /** The handler of `summarizeQueue`. */
  summarizeJob: SummarizeJob;
  /** Analyze runs: trigger, schedule, the agent (handler of `analyzeQueue`). */
  analyze: AnalyzeService;
  /** Push templates: list and preview. */
  templates: TemplatesService;
  /** Targetless contents, presentations and renditions (SPEC 4.7) and their jobs. */
  targetless: Targetless;
  /** Firmware offers to displays and MQTT devices, and owners' holds (issue 24). */
  firmwareUpdates: FirmwareUpdates;
  /** Button actions of pull displays (issue 24). */
  buttons: ButtonActions;
  /** Event webhooks: subscriptions, events, deliveries (handler of `webhookDeliveryQueue`). */
  webhooks: WebhooksService;
  /** The once-a-minute `device.offline` sweep (handler of `webhookSweepQueue`). */
  webhookSweep: OfflineSweep;
}
