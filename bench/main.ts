/**
 * `deno task bench`: every benchmark, printed as one table. Set DATABASE_URL to measure against
 * a real PostgreSQL instead of the embedded PGlite.
 */
import { benchAuth } from "./auth.ts";
import { type BenchRow, printTable } from "./lib.ts";

const databaseUrl = Deno.env.get("DATABASE_URL");
const rows: BenchRow[] = [
  ...(await benchAuth(databaseUrl ? { DATABASE_URL: databaseUrl } : {})),
];
printTable(rows);
