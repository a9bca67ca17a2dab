/**
 * The services every procedure and handler reaches through its context. `main.ts` (or a test)
 * builds them once from the configuration and the infrastructure adapters.
 */
import type { Config } from "./config.ts";
import type { Db } from "./schema.ts";
import { AccessTokens } from "./accounts/access_tokens.ts";
import { AccountsService } from "./accounts/service.ts";
import { Authenticator } from "./accounts/authenticator.ts";
import { LoginLimiter } from "./accounts/login_limiter.ts";
import { PatsService } from "./pats/service.ts";
import { BillingService } from "./billing/service.ts";
import { createStripe } from "./billing/stripe_client.ts";
import { OauthService } from "./oauth/service.ts";
import { createFactory, type Factory } from "./factory/mod.ts";
import { BindingService } from "./binding/service.ts";
import type { ManifestKeyRecord, NfcKeyring } from "./factory/keys.ts";
import type { Jobs } from "./jobs/types.ts";
import type { Renderer } from "./render/types.ts";
import type { ObjectStore } from "./storage/object_store.ts";
import { type DeviceMessenger, DevicesService } from "./devices/service.ts";
import { PushesService } from "./pushes/service.ts";
import { PushRenderJob } from "./pushes/render_job.ts";

/** Who is calling, once authenticated. */
export type Caller =
  | { kind: "user"; userId: string; sessionId: string; expiresAt: number }
  | { kind: "pat"; userId: string; patId: string };

/** Long-lived infrastructure `createApp` opens and closes; the services only use it. */
export interface Infrastructure {
  jobs: Jobs;
  renderer: Renderer;
  /** Object storage: S3 or the embedded disk store. */
  storage: ObjectStore;
  /** The MQTT gateway, as the devices see it. */
  messenger: DeviceMessenger;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** The service's public origin; with PORT=0 it is known only once listening. */
  publicBaseUrl?: () => string;
}

/** Secrets that are generated and kept under DATA_DIR when not configured. */
export interface Secrets {
  jwtSecret: string;
  /** NFC master keys (NFC_MASTER_KEYS or generated). */
  nfc: NfcKeyring;
  /** Ed25519 manifest signing keys, oldest first; the last one signs. */
  manifestKeys: ManifestKeyRecord[];
  /** HMAC key of the embedded object store's signed URLs and upload policies. */
  storageSecret: string;
  /** Password of the service's own client on the embedded MQTT broker. */
  mqttServiceSecret: string;
  /** Key of the per-device MQTT passwords (MQTT_DEVICE_KEY or generated; 32 bytes). */
  mqttDeviceKey: Uint8Array;
}

export interface Services {
  config: Config;
  db: Db;
  accounts: AccountsService;
  auth: Authenticator;
  pats: PatsService;
  billing: BillingService;
  oauth: OauthService;
  factory: Factory;
  binding: BindingService;
  /** Background jobs (pg-boss): enqueue renders, register their handler. */
  jobs: Jobs;
  /** The render pool (Piscina): uploaded image → the three push bitmaps. */
  renderer: Renderer;
  storage: ObjectStore;
  devices: DevicesService;
  pushes: PushesService;
  /** The render job handler, registered with `jobs.onRender` at start-up. */
  pushRenderJob: PushRenderJob;
}

/** Wires the domain services together. */
export function createServices(
  config: Config,
  db: Db,
  secrets: Secrets,
  infra: Infrastructure,
): Services {
  const tokens = new AccessTokens(secrets.jwtSecret, config.accessTokenTtlSeconds);
  const pats = new PatsService(db);
  const accounts = new AccountsService(db, tokens, new LoginLimiter(db, config.loginFailures));
  const billing = new BillingService(db, config, createStripe(config.stripe));
  const oauth = new OauthService(db, config, { accounts, pats }, infra.publicBaseUrl);
  accounts.subscriptionOf = (userId) => billing.summary(userId);
  // SPEC 4.1: before deleting, revoke the Apple authorization and cancel a live subscription.
  accounts.deletionSteps.before.push(
    (user) => oauth.revokeApple(user.id),
    (user) => billing.cancelForDeletion(user.id),
  );
  const devices = new DevicesService(db, infra.messenger, infra.log);
  const pushes = new PushesService(
    db,
    devices,
    infra.storage,
    infra.jobs,
    infra.messenger,
    infra.log,
  );
  // SPEC 4.1: account deletion unlinks devices (claimable again) and deletes their pushes.
  accounts.deletionSteps.inTransaction.push((trx, userId) => devices.unlinkAllOf(trx, userId));
  accounts.deletionSteps.after.push(async (userId) => {
    await devices.notifyUnlinked(userId);
    await infra.storage.deletePrefix(`render/${userId}/`);
    await infra.storage.deletePrefix(`uploads/${userId}/`);
  });
  return {
    config,
    db,
    accounts,
    auth: new Authenticator(db, tokens, pats),
    pats,
    billing,
    oauth,
    factory: createFactory(db, config, secrets),
    binding: new BindingService(db, secrets.nfc),
    jobs: infra.jobs,
    renderer: infra.renderer,
    storage: infra.storage,
    devices,
    pushes,
    pushRenderJob: new PushRenderJob(pushes, infra.renderer, infra.log),
  };
}
