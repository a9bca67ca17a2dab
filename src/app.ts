/**
 * Builds the service from a configuration: database, migrations, services and the fetch
 * handlers of its listeners. `main.ts` serves them; tests start the same thing on port 0.
 */
import type { Config } from "./config.ts";
import { connect, type Connection } from "./infra/db/connect.ts";
import { ChangeFeed } from "./infra/db/cache/feed.ts";
import { pgliteChangeSource, postgresChangeSource } from "./infra/db/cache/sources.ts";
import { migrate } from "./infra/db/migrator.ts";
import { createHandler } from "./infra/http/handler.ts";
import { envelopeOf, errorResponse } from "./infra/http/envelope.ts";
import { AppError } from "./errors.ts";
import { createLogger, type Logger } from "./infra/http/log.ts";
import { createJobs } from "./infra/jobs/boss.ts";
import type { Jobs } from "./infra/jobs/types.ts";
import { type Audience, buildOpenApiDocument } from "./infra/openapi/document.ts";
import { allRawRoutes } from "./raw_routes.ts";
import { defaultThreads, RenderPool } from "./infra/render/pool.ts";
import { HtmlScreens } from "./infra/html/screens.ts";
import { screensLine } from "./infra/html/executable.ts";
import { Readiness, readyRoute } from "./infra/http/readiness.ts";
import { sql } from "kysely";
import { type Messaging, openMessaging } from "./infra/mqtt/messaging.ts";
import { MqttGateway } from "./infra/mqtt/gateway.ts";
import { deviceMessageHandler, deviceMessageQueue, DeviceOutbox } from "./infra/mqtt/outbox.ts";
import { SERVICE_SUBSCRIPTION, sharedSubscription } from "./infra/mqtt/topics.ts";
import { deviceInbox } from "./domains/pushes/device_inbox.ts";
import { DiskObjectStore } from "./infra/storage/disk.ts";
import type { ObjectStore } from "./infra/storage/object_store.ts";
import { appRouter } from "./router.ts";
import { QUEUES } from "./queues.ts";
import { DOMAIN_QUEUES, DOMAIN_TAGS } from "./domains.ts";
import type { DB } from "./schema.ts";
import { loadSecrets } from "./secrets.ts";
import { createServices } from "./build_services.ts";
import type { Services } from "./services.ts";
import { metricsRoute, metricsServed } from "./infra/metrics/route.ts";
import { NO_METRICS, PromMetrics } from "./infra/metrics/metrics.ts";
import { WARM_UP_REQUESTS, WARM_UP_REQUESTS_PGLITE, warmRequestPath } from "./warm_up.ts";
import { AccessTokens } from "./domains/accounts/access_tokens.ts";

export interface App {
  services: Services;
  logger: Logger;
  /** Handler for the user port (and the factory routes when no FACTORY_PORT is set). */
  userHandler: (req: Request, info?: Deno.ServeHandlerInfo<Deno.NetAddr>) => Promise<Response>;
  /** Handler for FACTORY_PORT, when configured. */
  factoryHandler?: (req: Request, info?: Deno.ServeHandlerInfo<Deno.NetAddr>) => Promise<Response>;
  /** What `/metrics` reports. */
  metrics: PromMetrics;
  /** Which embedded defaults are in use, for the start-up banner. */
  embedded: string[];
  /** Which Chromium draws plugins' HTML screens, for the start-up banner. */
  screensLine: string;
  /** The banner line of this process's role (api, worker or all). */
  roleLine: string;
  /** Where devices connect: MQTT_URL, or the embedded broker's actual address. */
  mqttUrl: string;
  /** Tells the app where it listens (signed URLs point there when PUBLIC_BASE_URL is unset). */
  listening(url: string): void;
  close(): Promise<void>;
}

/** Opens everything the service needs; the caller serves the handlers and calls `close()`. */
export async function createApp(config: Config): Promise<App> {
  const logger = createLogger(config.logLevel);
  // docs/decisions.md "Roles": API processes serve HTTP and device messages, workers run jobs.
  const serves = config.role !== "worker";
  const works = config.role !== "api";
  // An API process renders only what HTTP asks for synchronously (previews, the playground):
  // one thread unless RENDER_THREADS says otherwise.
  const threads = config.renderThreads ?? (works ? defaultThreads() : 1);
  const secrets = await loadSecrets(config);
  // One registry per app, handed to the infrastructure that observes something (issue 14).
  const metrics = new PromMetrics();
  // Invalidation of the request path's caches (issue 13, src/infra/db/cache/).
  const changes = new ChangeFeed(logger);
  const report = (what: string) => (error: unknown) =>
    logger.error(`${what} error`, { error: error instanceof Error ? error.message : error });
  // No render worker at rest (issue 40): the first render starts one (it loads and warms the image
  // path, ~0.25 s on a quiet machine; an upload ticket or an HTML capture starts it early), and the
  // last ends after a minute without renders. A warm worker is ~85-135 MB resident, and its start
  // took the cores from this thread's start (src/infra/render/pool.ts).
  const pool = new RenderPool({
    threads,
    restingThreads: 0,
    onError: report("render pool"),
    metrics,
  });
  let connection: Connection<DB>;
  try {
    connection = await connect<DB>({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      metrics,
      onWrite: () => changes.wrote(),
      jobQueues: QUEUES,
    });
  } catch (error) {
    await pool.close();
    throw error;
  }
  // GET /ready: each component registers its check once it is open (src/infra/http/readiness.ts).
  const readiness = new Readiness();
  readiness.register("database", async () => {
    await sql`SELECT 1`.execute(connection.db);
    return true;
  });
  let migrated = false;
  readiness.register("migrations", () => migrated);
  let jobs: Jobs | undefined;
  const renderer = pool;
  // Plugins' HTML screens: Chromium starts with the first screen, not here (docs/render.md).
  const screens = new HtmlScreens({
    renderer: pool,
    chromiumPath: config.htmlScreens.chromiumPath,
    frameworkCssPath: config.htmlScreens.frameworkCss,
  });
  let messaging: Messaging | undefined;
  const closeAll = async () => {
    // Devices first: no new push requests arrive while the rest shuts down.
    await messaging?.close();
    // The queue next: a running render job finishes (it needs the pool and the database),
    // then the pool, then the database.
    await jobs?.stop();
    await screens.close();
    await renderer.close();
    await changes.close();
    await connection.close();
  };
  try {
    await migrate(connection.db);
    migrated = true;
    // Ready means fast (issue 26): the pool's connections open before /ready says 200.
    await connection.warm();
    // The triggers exist now; caches serve once the first LISTEN succeeded.
    await changes.start(
      connection.pglite
        ? pgliteChangeSource(connection.pglite)
        : postgresChangeSource(config.databaseUrl!, logger),
    );
    jobs = await createJobs(connection, {
      queues: QUEUES,
      databaseUrl: config.databaseUrl,
      onError: (msg, fields) => logger.error(msg, fields),
      metrics,
    });
  } catch (error) {
    await closeAll();
    throw error;
  }
  readiness.register("render", () => pool.alive);
  // Signed URLs of the embedded store point at the listener; with PORT=0 it is known only later.
  let publicBaseUrl = config.publicBaseUrl;
  // The AWS SDK loads only when S3 is configured (issue 26: ~9 MB resident otherwise).
  const storage: ObjectStore = config.s3
    ? new (await import("./infra/storage/s3.ts")).S3ObjectStore(config.s3)
    : new DiskObjectStore(`${config.dataDir}/objects`, secrets.storageSecret, () => publicBaseUrl);
  // The services publish through the gateway; it connects once the broker runs, below.
  const gateway = new MqttGateway({
    onError: (msg, fields) => logger.error(msg, fields),
    metrics,
  });
  const services = createServices(config, connection.db, secrets, {
    jobs,
    renderer,
    screens,
    storage,
    messenger: gateway,
    changes,
    outbox: new DeviceOutbox(jobs),
    log: logger,
    publicBaseUrl: () => publicBaseUrl,
  });
  try {
    messaging = await openMessaging(config, {
      gateway,
      serviceSecret: secrets.mqttServiceSecret,
      // CONTRACT.md "MQTT topics": devices authenticate with their per-device secret.
      deviceKey: secrets.mqttDeviceKey,
      credentialVersions: (thingNames) => services.devices.credentialVersions(thingNames),
      onError: (msg, fields) => logger.error(msg, fields),
      log: (msg, fields) => logger.info(msg, fields),
      metrics,
    });
  } catch (error) {
    await closeAll();
    throw error;
  }
  readiness.register("broker", () => gateway.connected);
  // Handlers last, once everything they call exists: device messages, then jobs.
  if (serves) {
    // On an external broker the API processes share the subscription (each message reaches one
    // of them); aedes has no `$share`, and the embedded broker serves one process anyway.
    const filter = messaging.broker
      ? SERVICE_SUBSCRIPTION
      : sharedSubscription(config.mqttShareGroup);
    gateway.listen(deviceInbox(services.devices, services.pushes, gateway), filter);
  }
  if (works) await workJobs(config, services, jobs, gateway, threads);
  // Built on first request, once the listener (and so PUBLIC_BASE_URL's default) is known.
  const documents: Partial<Record<Audience, unknown>> = {};
  const documentOf = (audience: Audience) => () =>
    documents[audience] ??= buildOpenApiDocument(
      audience,
      { router: appRouter, raw, tags: DOMAIN_TAGS },
      publicBaseUrl,
    );
  const documentsOf = { user: documentOf("user"), factory: documentOf("factory") };
  const raw = allRawRoutes(documentsOf);
  const handler = (ingress: "combined" | "user" | "factory") => {
    const exposure = {
      served: metricsServed(ingress, config.metricsToken),
      token: config.metricsToken,
      scrape: () => metrics.scrape(),
    };
    const full = createHandler({
      router: appRouter,
      raw: allRawRoutes(documentsOf, metricsRoute(exposure), readyRoute(readiness)),
      services,
      logger,
      ingress,
      metrics,
    });
    return serves ? full : probesOnly(full);
  };
  if (serves) {
    // Ready means fast (issue 26): the request path runs before /ready says 200, unobserved.
    const quiet = createHandler({
      router: appRouter,
      raw: allRawRoutes(documentsOf, readyRoute(readiness)),
      services,
      logger: createLogger("silent"),
      ingress: "combined",
      metrics: NO_METRICS,
    });
    // On PGlite the warm-up's queries wait in line for its one connection: a third of them
    // leaves the first seconds' p99 where it was and answers /ready ~0.4 s sooner.
    await warmRequestPath(
      quiet,
      new AccessTokens(secrets.jwtSecret, config.accessTokenTtlSeconds),
      connection.kind === "pglite" ? WARM_UP_REQUESTS_PGLITE : WARM_UP_REQUESTS,
    );
  }
  const embedded = [
    ...(connection.kind === "pglite"
      ? [`PostgreSQL: embedded PGlite in ${config.dataDir}/pg`]
      : []),
    ...secrets.generated.map((name) => `${name}: generated in ${config.dataDir}/secrets.json`),
    ...(messaging.embedded ? [messaging.embedded] : []),
    ...(storage.kind === "disk"
      ? [`Object storage: embedded in ${config.dataDir}/objects (set S3_BUCKET for S3)`]
      : []),
  ];
  return {
    services,
    logger,
    metrics,
    // A worker's one port is its probe and scrape port (no factory routes reach it anyway).
    userHandler: handler(config.factoryPort === undefined || !serves ? "combined" : "user"),
    // A worker answers its probes on PORT only.
    factoryHandler: config.factoryPort === undefined || !serves ? undefined : handler("factory"),
    embedded,
    screensLine: await screensLine(config.htmlScreens.chromiumPath),
    roleLine: {
      all: "Role: all (API, device messages and jobs in this process)",
      api: `Role: api (HTTP and device messages, share group ${config.mqttShareGroup}; ` +
        `no jobs; render pool ${threads})`,
      worker: `Role: worker (jobs and the device-message outbox; render pool ${threads}; ` +
        "HTTP answers probes only)",
    }[config.role],
    mqttUrl: messaging.url,
    listening(url) {
      if (config.port === 0 && !config.publicBaseUrlConfigured) publicBaseUrl = url;
    },
    close: closeAll,
  };
}

/**
 * Registers every queue's handler: what a worker (or an `all`) process runs. Each domain's
 * queues come from its face (`src/domains.ts`), then the device-message outbox's.
 */
async function workJobs(
  config: Config,
  services: Services,
  jobs: Jobs,
  gateway: MqttGateway,
  threads: number,
) {
  for (const { queue, handler, concurrency, schedule } of DOMAIN_QUEUES) {
    await jobs.work(queue, handler(services), {
      concurrency: concurrency === "pool" ? threads : concurrency,
    });
    if (schedule) {
      const { cron, data } = schedule(config);
      await jobs.schedule(queue, cron, data);
    }
  }
  // The outbox (src/infra/mqtt/outbox.ts): a failed publish throws, so pg-boss retries with backoff.
  await jobs.work(deviceMessageQueue, deviceMessageHandler(gateway), { concurrency: 2 });
}

/** Paths a worker process answers: its probes and its metrics (docs/deploy.md). */
const PROBE_PATHS = new Set(["/health", "/ready", "/metrics"]);

/** A worker serves no API: anything but a probe is 404 in the main envelope. */
function probesOnly(handler: App["userHandler"]): App["userHandler"] {
  return (req, info) => {
    const path = new URL(req.url).pathname;
    if (PROBE_PATHS.has(path)) return handler(req, info);
    const error = new AppError("not_found", "A worker process serves no API");
    return Promise.resolve(errorResponse(envelopeOf(path), error, crypto.randomUUID()));
  };
}
