/**
 * Builds the service from a configuration: database, migrations, services and the fetch
 * handlers of its listeners. `main.ts` serves them; tests start the same thing on port 0.
 */
import type { Config } from "./config.ts";
import { connect } from "./db/connect.ts";
import { migrate } from "./db/migrator.ts";
import { createHandler } from "./http/handler.ts";
import { createLogger, type Logger } from "./http/log.ts";
import type { RawRoute } from "./http/raw.ts";
import { openApiRoute } from "./http/system_routes.ts";
import { createJobs } from "./jobs/boss.ts";
import type { Jobs } from "./jobs/types.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import { domainRawRoutes } from "./raw_routes.ts";
import { createRenderPool } from "./render/pool.ts";
import type { Renderer } from "./render/types.ts";
import { appRouter } from "./router.ts";
import type { DB } from "./schema.ts";
import { loadSecrets } from "./secrets.ts";
import { createServices, type Services } from "./services.ts";

/** The raw routes including the OpenAPI document route. */
export function allRawRoutes(document: () => unknown): RawRoute[] {
  return [...domainRawRoutes, openApiRoute(document)];
}

export interface App {
  services: Services;
  logger: Logger;
  /** Handler for the user port (and the factory routes when no FACTORY_PORT is set). */
  userHandler: (req: Request, info?: Deno.ServeHandlerInfo<Deno.NetAddr>) => Promise<Response>;
  /** Handler for FACTORY_PORT, when configured. */
  factoryHandler?: (req: Request, info?: Deno.ServeHandlerInfo<Deno.NetAddr>) => Promise<Response>;
  /** Which embedded defaults are in use, for the start-up banner. */
  embedded: string[];
  close(): Promise<void>;
}

/** Opens everything the service needs; the caller serves the handlers and calls `close()`. */
export async function createApp(config: Config): Promise<App> {
  const logger = createLogger(config.logLevel);
  const secrets = await loadSecrets(config);
  const connection = await connect<DB>({ url: config.databaseUrl, dataDir: config.dataDir });
  let jobs: Jobs | undefined;
  let renderer: Renderer | undefined;
  const closeAll = async () => {
    // The pool first: a render still running finishes its job before the queue stops.
    await renderer?.close();
    await jobs?.stop();
    await connection.close();
  };
  try {
    await migrate(connection.db);
    const report = (what: string) => (error: unknown) =>
      logger.error(`${what} error`, { error: error instanceof Error ? error.message : error });
    [jobs, renderer] = await Promise.all([
      createJobs(connection, { databaseUrl: config.databaseUrl, onError: report("jobs") }),
      createRenderPool({ onError: report("render pool") }),
    ]);
  } catch (error) {
    await closeAll();
    throw error;
  }
  const services = createServices(config, connection.db, secrets, { jobs, renderer });
  let document: unknown;
  const raw = allRawRoutes(() => (document ??= buildOpenApiDocument(raw)));
  const handler = (ingress: "combined" | "user" | "factory") =>
    createHandler({ router: appRouter, raw, services, logger, ingress });
  const embedded = [
    ...(connection.kind === "pglite"
      ? [`PostgreSQL: embedded PGlite in ${config.dataDir}/pg`]
      : []),
    ...secrets.generated.map((name) => `${name}: generated in ${config.dataDir}/secrets.json`),
  ];
  return {
    services,
    logger,
    userHandler: handler(config.factoryPort === undefined ? "combined" : "user"),
    factoryHandler: config.factoryPort === undefined ? undefined : handler("factory"),
    embedded,
    close: closeAll,
  };
}
