/**
 * An exclusive lock on the embedded database directory. PGlite is one process's database: a
 * second process (`deno task admin`, `migrate`, another `start`) opening the same files would
 * corrupt them, so it must stop with a clear message instead.
 */

/** Raised when another live process holds the directory. */
export class DirectoryLockedError extends Error {}

function alive(pid: number): boolean {
  if (pid === Deno.pid) return true;
  try {
    // Linux: a live process has /proc/<pid>; elsewhere assume it is alive (safe side).
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound) && Deno.build.os !== "linux";
  }
}

/** Takes the lock file (`pid` inside); a lock left by a dead process is taken over. */
export async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  const path = `${dir}/dds.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await Deno.writeTextFile(path, String(Deno.pid), { createNew: true });
      return () => Deno.remove(path).catch(() => {});
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      const holder = Number(await Deno.readTextFile(path).catch(() => "0"));
      if (holder && alive(holder)) {
        throw new DirectoryLockedError(
          `The embedded database in ${dir} is in use by process ${holder}: stop it first, or set DATABASE_URL`,
        );
      }
      await Deno.remove(path).catch(() => {});
    }
  }
  throw new DirectoryLockedError(`Could not lock ${dir}`);
}
