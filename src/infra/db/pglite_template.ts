/**
 * A fresh embedded database starts as a copy of a template (issue 26). Creating one is PGlite's
 * initdb (~3.7 s) and then every migration (~1.5-2.4 s); a copy of a cluster made by the same
 * PGlite build and migrated by the same files is the same database, and copying its ~40 MB takes
 * a tenth of a second. The first fresh start on a machine makes the cluster as before (in a child
 * process, src/infra/db/pglite_init.ts) and leaves a copy in the user's cache directory; later
 * fresh data directories (another DATA_DIR, every embedded test server) start from it.
 *
 * The template's name says what made it: PGlite's version and a digest of the migration files,
 * pg-boss's version and the queues (the jobs' schema and queues are part of it). A change to any
 * makes a new template (older ones go after a day). Without a cache directory
 * (no HOME, or it cannot be written), every fresh start makes its cluster as before.
 */
import { sha256Hex } from "../lib/crypto.ts";
import { migrationFiles, MIGRATIONS_DIR } from "./migrator.ts";
import type { QueueSettings } from "../jobs/types.ts";

/** The file whose presence says a directory holds a cluster (PostgreSQL writes it first). */
const MARKER = "PG_VERSION";
/** The service's own files in a data directory's `pg/`, never part of a template. */
const OWN_FILES = new Set(["dds.lock"]);
/**
 * Other templates older than this go when one is saved: checkouts with other migrations (a
 * branch, a worktree) keep theirs for a day, and a machine does not collect them for ever.
 */
const STALE_AFTER_MS = 24 * 3600_000;
/** Files copied at once. */
const COPY_CONCURRENCY = 16;

/** The cache directory templates live in, or undefined when there is none. */
export function templateRoot(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string | undefined {
  const cache = env("XDG_CACHE_HOME") || (env("HOME") ? `${env("HOME")}/.cache` : undefined);
  return cache ? `${cache}/device-display-service/pglite` : undefined;
}

/** The template's name: PGlite's version and a digest of the migrations, pg-boss and the queues. */
export async function templateName(
  migrations: URL = MIGRATIONS_DIR,
  queues: QueueSettings[] = [],
): Promise<string> {
  const version = packageVersion("@electric-sql/pglite", "pglite");
  // The jobs' schema is pg-boss's: another version (or other queues) is another template.
  const parts: string[] = [packageVersion("pg-boss", "pg-boss"), JSON.stringify(queues)];
  for (const name of await migrationFiles(migrations)) {
    parts.push(name, await Deno.readTextFile(new URL(name, migrations)));
  }
  return `pglite-${version}-${sha256Hex(parts.join("\0")).slice(0, 16)}`;
}

/** A package's version from its resolved path (`…/pglite@0.5.16/…`), else the path's digest. */
function packageVersion(specifier: string, folder: string): string {
  const resolved = import.meta.resolve(specifier);
  return resolved.match(new RegExp(`${folder}@([0-9A-Za-z.+-]+?)/`))?.[1] ?? sha256Hex(resolved);
}

/** Whether `dir` holds a database cluster already. */
export async function hasCluster(dir: string): Promise<boolean> {
  try {
    await Deno.stat(`${dir}/${MARKER}`);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Removes what an interrupted creation or copy left in `dir` (it has no cluster marker), so the
 * next one starts from an empty directory; the service's own files stay.
 */
export async function clearPartial(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (OWN_FILES.has(entry.name)) continue;
    await Deno.remove(`${dir}/${entry.name}`, { recursive: true });
  }
}

/**
 * Copies the template into the empty `dir`; false when there is none. The marker is copied
 * last, so a copy cut short is never taken for a cluster.
 */
export async function copyFromTemplate(root: string, name: string, dir: string): Promise<boolean> {
  const template = `${root}/${name}`;
  if (!await hasCluster(template)) return false;
  await copyTree(template, dir, new Set([MARKER]));
  await Deno.copyFile(`${template}/${MARKER}`, `${dir}/${MARKER}`);
  return true;
}

/**
 * Leaves a copy of the freshly made cluster in `dir` as the template `name`, and removes stale
 * other templates. Written beside it and renamed into place, so a reader never sees half a
 * template; when another process got there first, its template stays.
 */
export async function saveTemplate(root: string, name: string, dir: string): Promise<void> {
  await Deno.mkdir(root, { recursive: true });
  const partial = `${root}/.partial-${crypto.randomUUID()}`;
  try {
    await Deno.mkdir(partial);
    await copyTree(dir, partial, OWN_FILES);
    await Deno.rename(partial, `${root}/${name}`);
  } catch {
    // Another process saved it first (the rename found a full directory), or the cache cannot
    // be written: a template is an optimisation, never a reason to fail a start.
  } finally {
    await Deno.remove(partial, { recursive: true }).catch(() => {});
  }
  const before = Date.now() - STALE_AFTER_MS;
  for await (const entry of Deno.readDir(root)) {
    if (!entry.isDirectory || !entry.name.startsWith("pglite-") || entry.name === name) continue;
    const made = (await Deno.stat(`${root}/${entry.name}`).catch(() => undefined))?.mtime;
    if (made && made.getTime() < before) {
      await Deno.remove(`${root}/${entry.name}`, { recursive: true }).catch(() => {});
    }
  }
}

/** Copies the files under `from` into `to` (which exists), all but the top-level `skip`. */
async function copyTree(from: string, to: string, skip: Set<string>): Promise<void> {
  const files: string[] = [];
  const walk = async (relative: string) => {
    for await (const entry of Deno.readDir(`${from}${relative}`)) {
      const path = `${relative}/${entry.name}`;
      if (relative === "" && skip.has(entry.name)) continue;
      if (entry.isDirectory) {
        await Deno.mkdir(`${to}${path}`);
        await walk(path);
      } else if (entry.isFile) files.push(path);
    }
  };
  await walk("");
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const path = files[next++];
      await Deno.copyFile(`${from}${path}`, `${to}${path}`);
    }
  };
  await Promise.all(Array.from({ length: COPY_CONCURRENCY }, lane));
}
