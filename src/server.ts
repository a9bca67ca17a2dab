/** Starts the listeners of an app; shared by `main.ts` and the integration tests. */
import type { Config } from "./config.ts";
import { type App, createApp } from "./app.ts";

export interface RunningServer {
  app: App;
  /** Base URL of the user API. */
  url: string;
  /** Base URL of the factory console (same as `url` without FACTORY_PORT). */
  factoryUrl: string;
  banner(): string[];
  shutdown(): Promise<void>;
}

/** Opens the app and serves it; port 0 picks a free port (tests). */
export async function startServer(config: Config): Promise<RunningServer> {
  const app = await createApp(config);
  const listen = (port: number, handler: App["userHandler"]) =>
    Deno.serve({ port, hostname: config.host, onListen: () => {} }, handler);
  const user = listen(config.port, app.userHandler);
  const factory = app.factoryHandler && config.factoryPort !== undefined
    ? listen(config.factoryPort, app.factoryHandler)
    : undefined;
  const local = (server: Deno.HttpServer<Deno.NetAddr>) =>
    `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${server.addr.port}`;
  const url = local(user);
  const factoryUrl = factory ? local(factory) : url;
  app.listening(url);
  return {
    app,
    url,
    factoryUrl,
    banner: () =>
      config.role === "worker"
        ? [
          `Device Display Service worker (probes: ${url}/health, metrics: ${url}/metrics)`,
          app.roleLine,
          ...(app.embedded.length
            ? ["Embedded defaults in use:", ...app.embedded.map((e) => `  ${e}`)]
            : []),
        ]
        : [
          `Device Display Service listening`,
          `  user API         ${url}  (health: ${url}/health, OpenAPI: ${url}/openapi.json, tRPC: ${url}/trpc)`,
          `  factory console  ${factoryUrl}/internal/factory${factory ? "" : " (shared port)"}`,
          `  API reference    ${url}/docs${
            factory ? `  (factory: ${factoryUrl}/internal/factory/docs)` : ""
          }`,
          `  playground       ${url}/playground  (render a Scene or a push template)`,
          `  metrics          ${metricsUrl(config, url, factoryUrl, factory !== undefined)}`,
          app.roleLine,
          ...(app.embedded.length
            ? ["Embedded defaults in use:", ...app.embedded.map((e) => `  ${e}`)]
            : []),
        ],
    async shutdown() {
      await Promise.all([user.shutdown(), factory?.shutdown()]);
      await app.close();
    },
  };
}

/** Where `/metrics` is scraped (src/metrics/route.ts), for the banner. */
function metricsUrl(config: Config, url: string, factoryUrl: string, ownFactoryPort: boolean) {
  const where = ownFactoryPort ? `${factoryUrl}/metrics` : `${url}/metrics`;
  if (config.metricsToken) {
    return `${where}${ownFactoryPort ? ` and ${url}/metrics` : ""} (Bearer METRICS_TOKEN)`;
  }
  return ownFactoryPort
    ? `${where} (factory port only)`
    : `${where} (set METRICS_TOKEN or FACTORY_PORT in production)`;
}
