/**
 * Starts the real service on an ephemeral port for a test. The database is the embedded PGlite
 * in a temporary directory, or, when DATABASE_URL is set, a fresh database created on that
 * server for this test server alone and dropped afterwards.
 */
import postgres from "postgres";
import { parseConfig } from "../../src/config.ts";
import { type RunningServer, startServer } from "../../src/server.ts";

export interface TestServer extends RunningServer {
  /** The environment the server was started with (handy for a restart). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The real PostgreSQL/Mosquitto of the machine, when the run selects them. */
export const externalDatabaseUrl = Deno.env.get("DATABASE_URL") || undefined;
export const externalMqttUrl = Deno.env.get("MQTT_URL") || undefined;

/** A fresh database on the external server, for tests that open their own connection. */
export async function createDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `dds_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await sql.end();
    },
  };
}

/** Starts a server with the given extra environment; close it in a `finally` or afterAll. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = await Deno.makeTempDir({ prefix: "dds-test-" });
  const database = externalDatabaseUrl && !env.DATABASE_URL
    ? await createDatabase(externalDatabaseUrl)
    : undefined;
  const fullEnv: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir,
    JWT_SECRET: "test-secret-test-secret-test-secret-0123456789",
    // The embedded broker on an ephemeral port (1883 belongs to the machine's Mosquitto).
    MQTT_PORT: "0",
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...(externalMqttUrl ? { MQTT_URL: externalMqttUrl } : {}),
    // Test servers of parallel runs share the machine's Mosquitto: each takes a share group of
    // its own, or a device message would go to a server whose database does not know it.
    MQTT_SHARE_GROUP: `test-${crypto.randomUUID().slice(0, 8)}`,
    ...env,
  };
  const server = await startServer(parseConfig(fullEnv));
  return {
    ...server,
    env: fullEnv,
    async close() {
      await server.shutdown();
      await database?.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
