/**
 * A fresh embedded database is created (PGlite's initdb) in a short-lived child process (issue
 * 26): initdb's WebAssembly memory, ~300 MB, is never given back by the process that ran it
 * (closing that PGlite frees none of it), so the service opened it at 1 GB resident instead of
 * the ~130 MB of opening an existing directory. The child also applies the migrations, installs
 * pg-boss's schema and creates the queues (made in the service, they grew its PGlite by 25-50 MB),
 * and closes the cluster, so it can be saved as the template of later fresh directories
 * (pglite_template.ts); the service then opens it as it opens an existing directory.
 *
 * Run as a script with the directory and the queues (JSON) as its arguments (what `initInChild`
 * does).
 */
import { PGlite } from "@electric-sql/pglite";
import { Kysely } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import { migrate } from "./migrator.ts";
import { installJobs } from "../jobs/install.ts";
import type { QueueSettings } from "../jobs/types.ts";

/**
 * Creates the cluster in `dir`, applies the migrations and creates the jobs' queues, from a
 * child process (so the cluster is closed cleanly and can be saved as a template); throws with
 * the child's error output.
 */
export async function initInChild(dir: string, queues: QueueSettings[] = []): Promise<void> {
  const config = new URL("../../../deno.json", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${config}`,
      // The parent has node_modules ready (it imported PGlite); the child only reads them.
      "--node-modules-dir=manual",
      "--allow-read",
      `--allow-write=${dir}`,
      "--allow-env",
      new URL(import.meta.url).pathname,
      dir,
      JSON.stringify(queues),
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `Creating the embedded database in ${dir} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

if (import.meta.main) {
  const pglite = await PGlite.create(Deno.args[0]);
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  await migrate(db);
  const queues = JSON.parse(Deno.args[1] ?? "[]") as QueueSettings[];
  if (queues.length) await installJobs(db, pglite, queues);
  await db.destroy();
  if (!pglite.closed) await pglite.close();
}
