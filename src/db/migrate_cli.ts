/** `deno task migrate`: applies pending migrations to the configured database and exits. */
import { loadConfig } from "../config.ts";
import { connect } from "./connect.ts";
import { migrate } from "./migrator.ts";

const config = loadConfig();
const connection = await connect<Record<string, never>>({
  url: config.databaseUrl,
  dataDir: config.dataDir,
});
try {
  const applied = await migrate(connection.db);
  console.log(applied.length ? `Applied ${applied.join(", ")}` : "Database is up to date");
} finally {
  await connection.close();
}
