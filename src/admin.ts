/**
 * `deno task admin <command>`: operator commands against the configured database (same config
 * and migrations as the service). Stop the service first when it runs on the embedded database:
 * PGlite serves one process at a time.
 *
 *   deno task admin set-plan <email|username> pro|free
 */
import { ConfigError, loadConfig } from "./config.ts";
import { helpAndExit } from "./infra/lib/usage.ts";
import { connect } from "./infra/db/connect.ts";
import { migrate } from "./infra/db/migrator.ts";
import type { DB, Db } from "./schema.ts";
import { AccountOperator } from "./domains/accounts/operator_service.ts";
import { setPlan } from "./domains/billing/repository.ts";

const USAGE = "Usage: deno task admin set-plan <email|username> pro|free";

const HELP = `
${USAGE}

Operator commands against the configured database (DATABASE_URL, else the embedded one under
DATA_DIR; stop \`deno task start\` first on the embedded database: it serves one process).

  set-plan <email|username> pro|free   puts the account on a plan without Stripe (docs/billing.md)
  --help                               this text
`;

/** Throws an Error with the usage unless the arguments are a command this tool knows. */
function checkUsage(args: string[]): void {
  const [command, identifier, plan] = args;
  if (command !== "set-plan" || !identifier || (plan !== "pro" && plan !== "free")) {
    throw new Error(USAGE);
  }
}

/** Runs one admin command; returns the line to print, throws an Error with the usage on misuse. */
export async function runAdmin(db: Db, args: string[]): Promise<string> {
  checkUsage(args);
  const [, identifier, plan] = args as [string, string, "pro" | "free"];
  // The tool names no table: accounts and billing own theirs (tools/check_tables.ts).
  const user = await new AccountOperator(db).find(identifier);
  if (!user) throw new Error(`No user with email or username ${identifier}`);
  await setPlan(db, user.id, plan);
  return `${user.username} is now on the ${plan} plan`;
}

if (import.meta.main) {
  helpAndExit(Deno.args, HELP);
  try {
    // A mistyped command opens no database.
    checkUsage(Deno.args);
    // The arguments are the command's own; the configuration is the environment only.
    const config = loadConfig();
    const connection = await connect<DB>({ url: config.databaseUrl, dataDir: config.dataDir });
    try {
      await migrate(connection.db);
      console.log(await runAdmin(connection.db, Deno.args));
    } finally {
      await connection.close();
    }
  } catch (error) {
    console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
}
