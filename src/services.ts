/**
 * The services every procedure and handler reaches through its context, built once from the
 * configuration and the infrastructure adapters. Read top to bottom it is the list of domains in
 * dependency order and of the reactions between them ("when X happens, Y follows"), each passed
 * in when a service is built: nothing is wired into a service after it exists. Most domains
 * build their own service from one object of dependencies (`build` in their face, `mod.ts`);
 * the type of the result is `src/services_type.ts`.
 */
import type { Config } from "./config.ts";
import type { Db } from "./schema.ts";
import type { Secrets } from "./secrets.ts";
import type { Log } from "./infra/lib/log.ts";
import type { Services } from "./services_type.ts";
import { ChangeFeed } from "./infra/db/cache/feed.ts";
import type { Jobs } from "./infra/jobs/types.ts";
import type { Renderer } from "./infra/render/types.ts";
import type { ObjectStore } from "./infra/storage/object_store.ts";
import { AccessTokens } from "./domains/accounts/access_tokens.ts";
import { AccountsService } from "./domains/accounts/service.ts";
import { AccountDeletion } from "./domains/accounts/deletion.ts";
import { Authenticator } from "./domains/accounts/authenticator.ts";
import { LoginLimiter } from "./domains/accounts/login_limiter.ts";
import type { DeviceMessenger, DeviceOutbox } from "./domains/devices/service.ts";
import { PushRenderJob } from "./domains/pushes/render_job.ts";
import { forgetDevicePushes } from "./domains/pushes/unlink.ts";
import { forgetDisplayLogs } from "./domains/displays/unlink.ts";
import { DOMAINS } from "./domains.ts";
import { billing as billingDomain } from "./domains/billing/mod.ts";
import { binding as bindingDomain } from "./domains/binding/mod.ts";
import { content as contentDomain } from "./domains/content/mod.ts";
import { devices as devicesDomain } from "./domains/devices/mod.ts";
import { displays as displaysDomain } from "./domains/displays/mod.ts";
import { factory as factoryDomain } from "./domains/factory/mod.ts";
import { oauth as oauthDomain } from "./domains/oauth/mod.ts";
import { linksReader } from "./domains/oauth/links.ts";
import { pats as patsDomain } from "./domains/pats/mod.ts";
import { pushes as pushesDomain } from "./domains/pushes/mod.ts";
import { targetless as targetlessDomain } from "./domains/targetless/mod.ts";
import { createModel } from "./infra/ai/create_model.ts";
import type { ModelResponse } from "./infra/ai/model.ts";
import { AGENT_TASK } from "./domains/content/analyze.ts";
import { SUMMARY_TASK } from "./domains/content/summary_prompt.ts";
import { offlineAgent } from "./domains/content/offline_agent.ts";
import { SCENE_TASK } from "./domains/targetless/scene_prompt.ts";
import { offlineSceneTask } from "./domains/targetless/offline_scene.ts";

/** Long-lived infrastructure `createApp` opens and closes; the services only use it. */
export interface Infrastructure {
  jobs: Jobs;
  renderer: Renderer;
  /** Object storage: S3 or the embedded disk store. */
  storage: ObjectStore;
  /** The MQTT gateway, as the devices see it. */
  messenger: DeviceMessenger;
  /** Invalidation of the request path's caches; without it nothing is cached. */
  changes?: ChangeFeed;
  /** Device messages that follow a commit (the transactional outbox). */
  outbox: DeviceOutbox;
  log: Log;
  /** The service's public origin; with PORT=0 it is known only once listening. */
  publicBaseUrl: () => string;
}

/** Builds the domain services in dependency order, each with the reactions it runs. */
export function createServices(
  config: Config,
  db: Db,
  secrets: Secrets,
  infra: Infrastructure,
): Services {
  const { storage, log } = infra;
  const changes = infra.changes ?? ChangeFeed.disabled();
  const tokens = new AccessTokens(secrets.jwtSecret, config.accessTokenTtlSeconds);
  const limiter = new LoginLimiter(db, config.loginFailures);
  const pats = patsDomain.build({ db, changes });
  const billing = billingDomain.build({ db, config });
  // GET /auth/me shows the billing summary (SPEC 2.1) and the provider links (oauth's rows).
  const accounts = new AccountsService({
    db,
    tokens,
    limiter,
    subscriptionOf: (userId) => billing.summary(userId),
    linksOf: linksReader(db),
    changes,
  });
  const oauth = oauthDomain.build({ db, config, accounts, pats, baseUrl: infra.publicBaseUrl });
  // SPEC 3.6 / 4.1: a device that leaves its owner takes its pushes, files and bitmaps with it,
  // and a display its log entries.
  const devices = devicesDomain.build({
    db,
    messenger: infra.messenger,
    outbox: infra.outbox,
    onUnlink: [forgetDevicePushes(storage), forgetDisplayLogs()],
    log,
    changes,
  });
  const pushes = pushesDomain.build({
    db,
    devices,
    store: storage,
    jobs: infra.jobs,
    log,
    changes,
  });
  // Displays people already own: a claimed one is a device (devices) showing its pushes (pushes).
  const displays = displaysDomain.build({
    db,
    devices,
    pushes,
    store: storage,
    renderer: infra.renderer,
    setupsPerMinute: config.displaySetupsPerMinute,
    baseUrl: infra.publicBaseUrl,
    log,
  });
  // The model, with the offline behaviour of every task (CONTRACT.md: deterministic, no network).
  const model = createModel(config, {
    offlineTasks: {
      // Content pipeline (SPEC 4.6): text heuristics and measured pictures; the push agent.
      // Run in the worker pool: heuristics over a 20,000-character note stay off the loop.
      [SUMMARY_TASK]: async (request) =>
        await infra.renderer.runText({ op: "summary", request }) as ModelResponse,
      [AGENT_TASK]: offlineAgent,
      // Targetless `auto`: a plain layout of the assets that fits the viewport.
      [SCENE_TASK]: offlineSceneTask,
    },
    taskModels: { [SUMMARY_TASK]: config.anthropic.summaryModel },
  });
  // --- Content pipeline (SPEC 4.6): raw items, summaries, analyze runs, templates ---
  const contentServices = contentDomain.build({
    db,
    store: storage,
    jobs: infra.jobs,
    log,
    model,
    renderer: infra.renderer,
    devices,
    pushes,
    limits: config.analyze,
  });
  const { content } = contentServices;
  // --- Targetless presentations (SPEC 4.7) ---
  // `auto` is gated by the plan (billing), `manual` checks the display's owner (devices) and
  // becomes a push (pushes); Scenes and renditions render in the pool; links are fetched by its
  // own SSRF-safe fetcher. A push whose render failed for good fails its display presentation.
  const targetless = targetlessDomain.build({
    db,
    store: storage,
    jobs: infra.jobs,
    limits: config.targetless,
    billing,
    devices,
    pushes,
    log,
    model,
    renderer: infra.renderer,
  });
  const pushRenderJob = new PushRenderJob(pushes, infra.renderer, {
    onFailedForGood: [(push, message) => targetless.pushFailedForGood(push.id, message)],
    // A display's custom images are drawn for its panel (CONTRACT.md).
    panelOf: (deviceId) => displays.panelOf(deviceId),
    log,
  });
  const accountDeletion = new AccountDeletion({
    db,
    limiter,
    log,
    steps: {
      // SPEC 4.1: before deleting, revoke the Apple authorization and cancel a live subscription.
      before: [(user) => oauth.revokeApple(user.id), (user) => billing.cancelForDeletion(user.id)],
      // SPEC 4.1: devices are unlinked (claimable again) with their pushes, and told `unbound`.
      inTransaction: [
        (trx, userId) => devices.unlinkAllOf(trx, userId),
        // SPEC 4.1: raw upload items, their files and the analyze runs (render tasks) go too.
        (trx, userId) => content.deleteAllOf(trx, userId),
        // SPEC 4.1: the user's contents, presentations and renditions go too.
        (trx, userId) => targetless.deleteAllOf(trx, userId),
      ],
      // Stored objects of the user go once the rows are gone: each domain names its prefixes.
      after: DOMAINS.flatMap((domain) => "objectKeys" in domain ? [domain.objectKeys] : [])
        .map((keys) => async (userId: string) => {
          for (const prefix of keys.userPrefixes(userId)) await storage.deletePrefix(prefix);
        }),
    },
  });
  const factory = factoryDomain.build({ db, config, keys: secrets });
  return {
    config,
    db,
    changes,
    auth: new Authenticator({ db, tokens, pats, changes }),
    accounts,
    accountDeletion,
    pats,
    billing,
    oauth,
    factory,
    // NFC binding locks the device (devices) and checks its credential (factory).
    binding: bindingDomain.build({
      db,
      keyring: secrets.nfc,
      devices,
      credentials: factory.credentials,
    }),
    jobs: infra.jobs,
    renderer: infra.renderer,
    storage,
    devices,
    pushes,
    displays,
    pushRenderJob,
    model,
    ...contentServices,
    targetless,
  };
}
