/**
 * Secrets that the service generates once and keeps under DATA_DIR when they are not configured,
 * so a fresh `deno task start` needs no setup and restarts keep tokens valid.
 */
import { randomToken } from "./lib/crypto.ts";
import type { Config } from "./config.ts";
import type { Secrets } from "./services.ts";

/** Loads (or creates) `DATA_DIR/secrets.json` and overlays configured values. */
export async function loadSecrets(config: Config): Promise<Secrets & { generated: string[] }> {
  const file = `${config.dataDir}/secrets.json`;
  let stored: Record<string, string> = {};
  try {
    stored = JSON.parse(await Deno.readTextFile(file));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const generated: string[] = [];
  if (!config.jwtSecret && !stored.jwtSecret) {
    stored.jwtSecret = randomToken(48);
    generated.push("JWT_SECRET");
  }
  // Never configured, always generated: the embedded object store's URL-signing key and the
  // password of the service's own client on the embedded MQTT broker.
  for (const name of ["storageSecret", "mqttServiceSecret"] as const) {
    if (!stored[name]) {
      stored[name] = randomToken(32);
      generated.push(name);
    }
  }
  if (generated.length) {
    await Deno.mkdir(config.dataDir, { recursive: true });
    await Deno.writeTextFile(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  return {
    jwtSecret: config.jwtSecret ?? stored.jwtSecret,
    storageSecret: stored.storageSecret,
    mqttServiceSecret: stored.mqttServiceSecret,
    generated: generated.filter((name) => name === "JWT_SECRET"),
  };
}
