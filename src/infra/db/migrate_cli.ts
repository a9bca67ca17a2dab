/**
 * `deno task migrate`: applies pending migrations to the configured database and exits. A line
 * per migration file on stderr (applied now or before, with counts and an ETA), the summary on
 * stdout.
 */
import { loadConfig } from "../../config.ts";
import { Progress } from "../lib/progress.ts";
import { helpAndExit } from "../lib/usage.ts";
import { connect } from "./connect.ts";
import { migrate } from "./migrator.ts";

helpAndExit(
  Deno.args,
  `Usage: deno task migrate

Applies the pending SQL migrations of migrations/ to the configured database (DATABASE_URL, else
the embedded one under DATA_DIR) and exits. \`deno task start\` applies them too.`,
);
const config = loadConfig();
const connection = await connect<Record<string, never>>({
  url: config.databaseUrl,
  dataDir: config.dataDir,
});
try {
  let progress: Progress | undefined;
  const applied = await migrate(connection.db, undefined, (step) => {
    progress ??= new Progress("migrate", { total: step.total });
    progress.step(`${step.name} ${step.applied ? "applied" : "already applied"}`);
  });
  progress?.finish(`${applied.length} applied`);
  console.log(applied.length ? `Applied ${applied.join(", ")}` : "Database is up to date");
} finally {
  await connection.close();
}
