/**
 * `deno task start`: the whole service in one process, with embedded defaults for whatever is
 * not configured. SIGINT/SIGTERM drain in-flight requests, then close the database.
 */
import { ConfigError, loadConfig } from "./config.ts";
import { DirectoryLockedError } from "./db/dir_lock.ts";
import { startServer } from "./server.ts";

try {
  const server = await startServer(loadConfig());
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
