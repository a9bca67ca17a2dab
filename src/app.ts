/**
 * Builds the service from a configuration: database, migrations, services and the fetch
 * handlers of its listeners. `main.ts` serves them; tests start the same thing on port 0.
 */
import type { Config } from "./config.ts";
import { connect } from "./db/connect.ts";
import { migrate } from "./db/migrator.ts";
import { createHandler } from "./http/handler.ts";
import { createLogger, type Logger } from "./http/log.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import { allRawRoutes } from "./raw_routes.ts";
import { appRouter } from "./router.ts";
import type { DB } from "./schema.ts";
import { loadSecrets } from "./secrets.ts";
import { createServices, type Services } from "./services.ts";

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
  try {
    await migrate(connection.db);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const services = createServices(config, connection.db, secrets);
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
    close: () => connection.close(),
  };
}
