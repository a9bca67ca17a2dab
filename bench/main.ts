/**
 * `deno task bench`: every benchmark, printed as one table. Set DATABASE_URL to measure against
 * a real PostgreSQL instead of the embedded PGlite.
 */
import { benchAuth } from "./auth.ts";
import { benchBilling } from "./billing.ts";
import { benchRender } from "./render.ts";
import { benchScene } from "./scene.ts";
import { benchTemplates } from "./templates.ts";
import { benchPush } from "./push.ts";
import { benchContent } from "./content.ts";
import { benchBurst } from "./burst.ts";
import { benchTargetless } from "./targetless.ts";
import { type BenchRow, printTable } from "./lib.ts";

const databaseUrl = Deno.env.get("DATABASE_URL");
const rows: BenchRow[] = [
  ...(await benchAuth(databaseUrl ? { DATABASE_URL: databaseUrl } : {})),
  ...(await benchBilling(databaseUrl ? { DATABASE_URL: databaseUrl } : {})),
  ...(await benchRender()),
  ...(await benchTemplates()),
  ...(await benchScene()),
  ...(await benchTargetless({ databaseUrl })),
  ...(await benchPush({ databaseUrl })),
  ...(await benchBurst({ databaseUrl })),
  ...(await benchContent(databaseUrl ? { DATABASE_URL: databaseUrl } : {})),
];
printTable(rows);
// The push benchmark runs the service in this process; its pools and timers end with it.
Deno.exit(0);
