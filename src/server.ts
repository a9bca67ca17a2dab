/** Starts the listeners of an app; shared by `main.ts` and the integration tests. */
import { type Config, ConfigError } from "./config.ts";
import { type App, createApp } from "./app.ts";
import { AppError } from "./errors.ts";
import { envelopeOf, errorResponse } from "./infra/http/envelope.ts";

export interface RunningServer {
  app: App;
  /** Base URL of the user API. */
  url: string;
  /** Base URL of the factory console (same as `url` without FACTORY_PORT). */
  factoryUrl: string;
  banner(): string[];
  shutdown(): Promise<void>;
}

/**
 * What a port answers while the app is still starting (migrations, pools, broker): `/health` is
 * 200 (the process is alive), everything else, `/ready` included, 503 in the path's envelope. So a
 * probe sees "not ready" rather than "connection refused" (issue 13); wait on `/ready`.
 */
function starting(req: Request): Response {
  const path = new URL(req.url).pathname;
  const requestId = crypto.randomUUID();
  const headers = { "x-request-id": requestId, "cache-control": "no-store" };
  if (path === "/health") return Response.json({ status: "ok" }, { headers });
  const message = path === "/ready" ? "Not ready: starting" : "The service is starting";
  const response = errorResponse(
    envelopeOf(path),
    new AppError("unavailable", message, { "retry-after": "1" }),
    requestId,
  );
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/** The one line start-up prints when PORT or FACTORY_PORT is taken. */
export function httpPortInUse(variable: "PORT" | "FACTORY_PORT", port: number): string {
  const other = `${variable}=${port === 65535 ? port - 1 : port + 1}`;
  return `${variable} ${port} is already in use (another service, or a second deno task start?): stop it, or choose a free ${variable} (e.g. ${other})`;
}

/**
 * Opens the ports, then the app, and serves it; port 0 picks a free port (tests). Until the app is
 * open the ports answer as `starting` says; a start that fails closes them again.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const listen = (
    variable: "PORT" | "FACTORY_PORT",
    port: number,
    handler: () => App["userHandler"] | undefined,
  ) => {
    try {
      return Deno.serve(
        { port, hostname: config.host, onListen: () => {} },
        (req, info) => handler()?.(req, info) ?? starting(req),
      );
    } catch (error) {
      // One line like a taken MQTT_PORT, not Deno's coloured stack trace (issue 34).
      if (error instanceof Deno.errors.AddrInUse) {
        throw new ConfigError(httpPortInUse(variable, port));
      }
      throw error;
    }
  };
  let app: App | undefined;
  const user = listen("PORT", config.port, () => app?.userHandler);
  // A worker serves its probes on PORT only (src/app.ts).
  let factory: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    factory = config.factoryPort !== undefined && config.role !== "worker"
      ? listen("FACTORY_PORT", config.factoryPort, () => app?.factoryHandler)
      : undefined;
  } catch (error) {
    await user.shutdown();
    throw error;
  }
  try {
    app = await createApp(config);
  } catch (error) {
    await Promise.all([user.shutdown(), factory?.shutdown()]);
    throw error;
  }
  const local = (server: Deno.HttpServer<Deno.NetAddr>) =>
    `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${server.addr.port}`;
  const url = local(user);
  const factoryUrl = factory ? local(factory) : url;
  app.listening(url);
  const opened = app;
  // Said on every start, by every role: deliveries may reach this network's own services.
  const warnings = config.webhookAllowPrivate
    ? [
      "WARNING: WEBHOOK_ALLOW_PRIVATE is on: webhooks may target private and loopback addresses " +
      "(this host's network). Local use and tests only; never in production.",
    ]
    : [];
  return {
    app: opened,
    url,
    factoryUrl,
    banner: () =>
      config.role === "worker"
        ? [
          `Device Display Service worker (probes: ${url}/health, metrics: ${url}/metrics)`,
          opened.roleLine,
          opened.screensLine,
          ...(opened.embedded.length
            ? ["Embedded defaults in use:", ...opened.embedded.map((e) => `  ${e}`)]
            : []),
          ...warnings,
        ]
        : [
          `Device Display Service listening`,
          `  user API         ${url}  (health: ${url}/health, OpenAPI: ${url}/openapi.json, tRPC: ${url}/trpc)`,
          `  factory console  ${factoryUrl}/internal/factory${factory ? "" : " (shared port)"}`,
          `  owner's console  ${url}/  (sign in, claim displays, push photos, plugins)`,
          `  API reference    ${url}/docs${
            factory ? `  (factory: ${factoryUrl}/internal/factory/docs)` : ""
          }`,
          `  playground       ${url}/playground  (render a Scene or a push template)`,
          `  metrics          ${metricsUrl(config, url, factoryUrl, factory !== undefined)}`,
          opened.roleLine,
          opened.screensLine,
          ...(opened.embedded.length
            ? ["Embedded defaults in use:", ...opened.embedded.map((e) => `  ${e}`)]
            : []),
          ...warnings,
        ],
    async shutdown() {
      await Promise.all([user.shutdown(), factory?.shutdown()]);
      await opened.close();
    },
  };
}

/** Where `/metrics` is scraped (src/infra/metrics/route.ts), for the banner. */
function metricsUrl(config: Config, url: string, factoryUrl: string, ownFactoryPort: boolean) {
  const where = ownFactoryPort ? `${factoryUrl}/metrics` : `${url}/metrics`;
  if (config.metricsToken) {
    return `${where}${ownFactoryPort ? ` and ${url}/metrics` : ""} (Bearer METRICS_TOKEN)`;
  }
  return ownFactoryPort
    ? `${where} (factory port only)`
    : `${where} (set METRICS_TOKEN or FACTORY_PORT in production)`;
}
