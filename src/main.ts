/**
 * `deno task start`: the whole service in one process, with embedded defaults for whatever is
 * not configured. SIGINT/SIGTERM drain in-flight requests, then close the database.
 *
 * What can refuse the start in a second (`--help`, a bad variable, a split role that cannot run,
 * MQTT_PORT taken) is checked before anything slow opens (issue 27). The server's modules are a
 * static import: loaded as a dynamic import, on a cold Deno cache (a first start, a new checkout)
 * the import never finished in about one start of five (docs/decisions.md).
 */
import { ConfigError, loadServiceConfig } from "./config.ts";
import { DirectoryLockedError } from "./infra/db/dir_lock.ts";
import { helpAndExit } from "./infra/lib/usage.ts";
import { mqttPortProblem } from "./infra/mqtt/port_check.ts";
import { startServer } from "./server.ts";

const USAGE = `
Usage: deno task start [--role api|worker|all]

Starts the Device Display Service: user API on PORT (8080), factory console, workers, and embedded
defaults (PGlite under DATA_DIR, an MQTT broker on MQTT_PORT 1883, a disk object store) for
whatever is not configured. Configuration is environment variables (README.md "Configuration").

  --role all      everything in one process (the default)
  --role api      HTTP and device messages; needs DATABASE_URL, MQTT_URL and S3_BUCKET
                  (or DATA_DIR_SHARED=1 on a shared volume)
  --role worker   the jobs; needs the same (docs/deploy.md)
  --help          this text

A broker already on 1883: MQTT_PORT=1884 deno task start, or MQTT_URL=mqtt://127.0.0.1:1883.
`;

try {
  helpAndExit(Deno.args, USAGE);
  const config = loadServiceConfig(Deno.args);
  const taken = mqttPortProblem(config);
  if (taken) throw new ConfigError(taken);
  // One progress line while the database, migrations, render pool and broker open (stdout: a
  // refusal stays the only line on stderr).
  console.log("Starting: database, migrations, render pool, broker ...");
  const server = await startServer(config);
  for (const line of server.banner()) console.log(line);
  const stop = async () => {
    console.log("Shutting down: draining requests");
    await server.shutdown();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
} catch (error) {
  // Conditions the operator must fix are one line, not a stack trace.
  if (error instanceof ConfigError || error instanceof DirectoryLockedError) {
    console.error(error.message);
    Deno.exit(1);
  }
  throw error;
}
