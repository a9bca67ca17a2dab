/**
 * Applies the numbered SQL files of `migrations/` in order, each in its own transaction, and
 * records them in `schema_migrations`. The same files serve PGlite and PostgreSQL.
 */
import { type Kysely, sql } from "kysely";

export const MIGRATIONS_DIR = new URL("../../../migrations/", import.meta.url);

/** The migration files of `dir`, in the order they apply. */
export async function migrationFiles(dir: URL = MIGRATIONS_DIR): Promise<string[]> {
  const files = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".sql")) files.push(entry.name);
  }
  return files.sort();
}

/** Splits a SQL file into statements on top-level semicolons (quotes and $$ bodies respected). */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (!quote && ch === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end;
      current += "\n";
      continue;
    }
    if (quote) {
      if (text.startsWith(quote, i)) {
        current += quote;
        i += quote.length - 1;
        quote = null;
        continue;
      }
    } else if (ch === "'") quote = "'";
    else if (text.startsWith("$$", i)) {
      quote = "$$";
      current += "$$";
      i++;
      continue;
    } else if (ch === ";") {
      if (current.trim()) statements.push(current.trim());
      current = "";
      continue;
    }
    current += ch;
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

/** One migration file looked at: applied now, or found applied before. */
export interface MigrationStep {
  name: string;
  applied: boolean;
  /** Files in the directory (the progress total). */
  total: number;
}

/** Applies every pending migration; returns the names applied now. */
export async function migrate(
  // deno-lint-ignore no-explicit-any
  db: Kysely<any>,
  dir: URL = MIGRATIONS_DIR,
  onStep?: (step: MigrationStep) => void,
): Promise<string[]> {
  // Under the migrators' lock too: CREATE TABLE IF NOT EXISTS is not safe against a concurrent
  // one (processes starting together on a fresh database: "duplicate key ... pg_type").
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(7270)`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(trx);
  });
  const files = await migrationFiles(dir);
  // One query finds what a restart has already applied (issue 26: a transaction per file was
  // ~0.5 s of every embedded start); a pending file is checked again under the lock below.
  const before = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db);
  const known = new Set(before.rows.map((row) => row.name));
  const applied: string[] = [];
  for (const name of files) {
    if (known.has(name)) {
      onStep?.({ name, applied: false, total: files.length });
      continue;
    }
    const text = await Deno.readTextFile(new URL(name, dir));
    const done = await db.transaction().execute(async (trx) => {
      // Serializes concurrent migrators (several test servers on one PostgreSQL server).
      await sql`SELECT pg_advisory_xact_lock(7270)`.execute(trx);
      const seen = await sql`SELECT 1 FROM schema_migrations WHERE name = ${name}`.execute(trx);
      if (seen.rows.length > 0) return false;
      for (const statement of splitStatements(text)) await sql.raw(statement).execute(trx);
      await sql`INSERT INTO schema_migrations (name) VALUES (${name})`.execute(trx);
      return true;
    });
    if (done) applied.push(name);
    onStep?.({ name, applied: done, total: files.length });
  }
  return applied;
}
