/**
 * What every procedure, raw route and job handler reaches as `services`: the built services of
 * the domains and the infrastructure they share. Types only: the domains' faces (`mod.ts`) reach
 * it through the tRPC context and their job handlers, and `src/services.ts`, which builds it,
 * imports the faces, so this type must not live with the builder.
 */
import type { Config } from "./config.ts";
import type { Db } from "./schema.ts";
import type { Authenticate } from "./caller.ts";
import type { ChangeFeed } from "./db/cache/feed.ts";
import type { Jobs } from "./jobs/types.ts";
import type { Renderer } from "./render/types.ts";
import type { ObjectStore } from "./storage/object_store.ts";
import type { AccountsService } from "./accounts/service.ts";
import type { AccountDeletion } from "./accounts/deletion.ts";
import type { PatsService } from "./pats/service.ts";
import type { BillingService } from "./billing/service.ts";
import type { OauthService } from "./oauth/service.ts";
import type { Factory } from "./factory/service.ts";
import type { BindingService } from "./binding/service.ts";
import type { DevicesService } from "./devices/service.ts";
import type { DisplaysService } from "./displays/service.ts";
import type { PushesService } from "./pushes/service.ts";
import type { PushRenderJob } from "./pushes/render_job.ts";
import type { Model } from "./ai/model.ts";
import type { ContentService } from "./content/service.ts";
import type { SummarizeJob } from "./content/summarize_job.ts";
import type { AnalyzeService } from "./content/analyze.ts";
import type { TemplatesService } from "./content/templates.ts";
import type { Targetless } from "./targetless/service.ts";
import type { WebhooksService } from "./webhooks/service.ts";
import type { OfflineSweep } from "./webhooks/sweep.ts";

export interface Services {
  config: Config;
  db: Db;
  /** Invalidation of the request path's caches (src/db/cache/). */
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
  /** Event webhooks: subscriptions, events, deliveries (handler of `webhookDeliveryQueue`). */
  webhooks: WebhooksService;
  /** The once-a-minute `device.offline` sweep (handler of `webhookSweepQueue`). */
  webhookSweep: OfflineSweep;
}
