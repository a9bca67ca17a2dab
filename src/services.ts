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
import { AccountDeletion } from "./domains/accounts/deletion_service.ts";
import { Authenticator } from "./domains/accounts/authenticator_service.ts";
import { LoginLimiter } from "./domains/accounts/login_limiter.ts";
import type { DeviceMessenger, DeviceOutbox, DeviceRow } from "./domains/devices/service.ts";
import type { UpdatableDevice } from "./domains/firmware/service.ts";
import { PushRenderJob } from "./domains/pushes/render_job.ts";
import { forgetDevicePushes } from "./domains/pushes/unlink.ts";
import { forgetDisplayLogs } from "./domains/displays/unlink.ts";
import { forgetFirmwareHold } from "./domains/firmware/unlink.ts";
import { firmware as firmwareDomain } from "./domains/firmware/mod.ts";
import { buttons as buttonsDomain } from "./domains/buttons/mod.ts";
import { forgetButtonAction } from "./domains/buttons/unlink.ts";
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
import { AGENT_TASK } from "./domains/content/analyze_service.ts";
import { SUMMARY_TASK } from "./domains/content/summary_prompt.ts";
import { offlineAgent } from "./domains/content/offline_agent.ts";
import { SCENE_TASK } from "./domains/targetless/scene_prompt.ts";
import { offlineSceneTask } from "./domains/targetless/offline_scene.ts";
import { webhooks as webhooksDomain } from "./domains/webhooks/mod.ts";
import { OfflineSweep } from "./domains/webhooks/sweep.ts";
import { isOnline } from "./domains/devices/views.ts";
import { LinkFetcher } from "./domains/targetless/links/fetch_link.ts";
import { judgeAddress } from "./domains/targetless/links/address_guard.ts";

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

/** What the webhooks' device events read of a device row (CONTRACT.md's online rule). */
function observation(row: DeviceRow) {
  return { deviceId: row.id, userId: row.owner_id!, online: isOnline(row), battery: row.battery };
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
  // Event webhooks (issue 24): deliveries go through the link assets' SSRF guard, private and
  // loopback targets only with WEBHOOK_ALLOW_PRIVATE (local use and tests).
  const webhooks = webhooksDomain.build({
    db,
    jobs: infra.jobs,
    changes,
    transport: new LinkFetcher({
      timeoutMs: 10_000,
      ...(config.webhookAllowPrivate
        ? {
          allowAddress: (address: string) =>
            [null, "private", "loopback"].includes(judgeAddress(address)),
        }
        : {}),
    }),
    log,
  });
  // The factory console; its firmware registry says which build a device should run.
  const factory = factoryDomain.build({ db, config, keys: secrets, store: storage });
  // Firmware offers (issue 24): a display's poll, an MQTT device's report; the owner's hold.
  const firmwareUpdates = firmwareDomain.build({
    db,
    store: storage,
    outbox: infra.outbox,
    offerFor: (device) => factory.firmware.offerFor(device),
  });
  // SPEC 3.6 / 4.1: a device that leaves its owner takes its pushes, files and bitmaps with it,
  // and a display its log entries. Its reports (polls too) feed the webhooks' device events.
  const devices = devicesDomain.build({
    db,
    messenger: infra.messenger,
    outbox: infra.outbox,
    onUnlink: [
      forgetDevicePushes(storage),
      forgetDisplayLogs(),
      forgetFirmwareHold(),
      forgetButtonAction(),
    ],
    // Issue 24: an MQTT device reporting another version than its rollout's gets `firmware`.
    onFirmwareReport: [(device) => firmwareUpdates.forMqtt(updatable(device))],
    onReport: [{
      wants: (row) => webhooks.watchesDevices(row.owner_id!),
      inTransaction: (trx, row) => webhooks.observeDevice(trx, observation(row)),
    }],
    log,
    changes,
  });
  const webhookSweep = new OfflineSweep({
    db,
    webhooks,
    lockDevice: async (trx, deviceId) => {
      const row = await devices.lock(trx, deviceId);
      return row && { ...observation(row), userId: row.owner_id };
    },
  });
  // push.published, push.confirmed and push.failed are emitted where the push changes.
  const pushes = pushesDomain.build({
    db,
    devices,
    store: storage,
    jobs: infra.jobs,
    log,
    changes,
    events: webhooks,
  });
  // A display's button (issue 24): a press moves its current push (pushes) or identifies it.
  const buttons = buttonsDomain.build({
    db,
    store: storage,
    renderer: infra.renderer,
    step: (deviceId, direction) => pushes.step(deviceId, direction),
    owned: (userId, deviceId) => devices.owned(userId, deviceId),
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
    imageSecret: secrets.storageSecret,
    changes,
    log,
    extras: {
      button: (device, headers) => buttons.onPoll(device, headers),
      // A display is claimed, never provisioned by the factory: no batch, no SKU.
      firmware: (device, reported) =>
        firmwareUpdates.forDisplay({
          id: device.id,
          thingName: device.thing_name,
          batchId: null,
          sku: null,
          model: modelOf(reported.model),
          firmware: reported["fw-version"] ?? null,
        }),
    },
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
    events: webhooks,
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
    firmwareUpdates,
    buttons,
    webhooks,
    webhookSweep,
  };
}

/**
 * A device as a firmware offer matches it: a display's poll reports its model and version in
 * headers (`reported`); an MQTT device its version in a report and its model in `state.model`.
 */
function updatable(device: DeviceRow): UpdatableDevice {
  const state = device.state as Record<string, unknown> | null;
  return {
    id: device.id,
    thingName: device.thing_name,
    model: modelOf(state?.model),
    firmware: device.firmware,
  };
}

/** A reported model name, when it is one. */
function modelOf(model: unknown): string | null {
  return typeof model === "string" && model.length <= 100 ? model : null;
}
