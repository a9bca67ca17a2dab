/**
 * Which folders of `src/` are domains (issue 22): those with a router (`router.ts`, the API a
 * domain shows) or tables (`tables.ts`, the rows it owns). Every other folder is
 * infrastructure or shared code. The import-cycle and table-ownership checks both use this.
 */
import { join } from "node:path";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The domain folders directly under `root`, sorted. */
export async function domainsOf(root: string): Promise<string[]> {
  const domains: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    if (!entry.isDirectory) continue;
    const dir = join(root, entry.name);
    if (await exists(join(dir, "tables.ts")) || await exists(join(dir, "router.ts"))) {
      domains.push(entry.name);
    }
  }
  return domains.sort();
}
