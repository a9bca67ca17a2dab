/**
 * The layout of `src/` (issue 22): the composition root's files at the top, the domains under
 * `src/domains/` (each shows its face in `mod.ts`: an API, rows in `tables.ts`, jobs), and
 * everything that serves them without owning rows or API under `src/infra/` (it imports no domain). The import-cycle and
 * table-ownership checks, and the test of the domain list, read the layout from here.
 */
import { join, relative, resolve } from "node:path";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function foldersOf(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.isDirectory) names.push(entry.name);
  return names.sort();
}

/** The domain folders of the tree under `root`: the folders of `root/domains/`, sorted. */
export function domainsOf(root: string): Promise<string[]> {
  return foldersOf(join(root, "domains"));
}

/** The domain a file under `root` belongs to, or undefined for the root and `infra/`. */
export function domainOfFile(root: string, file: string): string | undefined {
  const [top, name] = relative(resolve(root), resolve(file)).split("/");
  return top === "domains" && name !== undefined && !name.endsWith(".ts") ? name : undefined;
}

/**
 * Where the layout is broken: a top folder other than `domains/` and `infra/`, a domain without
 * a face, or an infrastructure folder with a router or tables (it would be a domain).
 */
export async function layoutProblems(root: string): Promise<string[]> {
  const problems: string[] = [];
  for (const top of await foldersOf(root)) {
    if (top !== "domains" && top !== "infra") {
      problems.push(`${root}/${top}/ is neither under ${root}/domains/ nor under ${root}/infra/`);
    }
  }
  for (const name of await domainsOf(root)) {
    const dir = join(root, "domains", name);
    if (!await exists(join(dir, "mod.ts"))) {
      problems.push(`${dir}/ has no face (mod.ts): a domain shows one (src/face.ts)`);
    }
  }
  for (const name of await foldersOf(join(root, "infra"))) {
    const dir = join(root, "infra", name);
    if (await exists(join(dir, "router.ts")) || await exists(join(dir, "tables.ts"))) {
      problems.push(`${dir}/ has a router or tables: it is a domain, under ${root}/domains/`);
    }
  }
  return problems;
}
