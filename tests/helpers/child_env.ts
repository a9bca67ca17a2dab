/**
 * The environment and stderr of a `deno` child process a test starts as a newcomer would (issue
 * 34): nothing of this process's configuration, but the same Deno cache as the parent. Deno finds
 * its cache through DENO_DIR, else XDG_CACHE_HOME, else HOME; a child without XDG_CACHE_HOME used
 * another cache than the parent and downloaded everything again.
 */

/** What Deno itself needs to find its cache, its tools and a temporary directory. */
const DENO_NEEDS = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"];

/** A clean environment (`clearEnv: true`) with Deno's own variables, NO_COLOR and `env`. */
export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const keep = DENO_NEEDS.flatMap((k) => {
    const v = Deno.env.get(k);
    return v === undefined ? [] : [[k, v]];
  });
  return { ...Object.fromEntries(keep), NO_COLOR: "1", ...env };
}

/**
 * A child's stderr lines that are its own: without deno task's `Task <name> <command>` line and
 * Deno's `Download https://...` progress on a fresh cache (a first run on a new machine).
 */
export function ownLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) =>
    line.trim() && !/^Task \S+ /.test(line) && !/^Download https?:\/\//.test(line)
  );
}
