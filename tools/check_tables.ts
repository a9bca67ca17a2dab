/**
 * `deno task check` step (issue 22): a domain's SQL names only its own tables. Domains are the
 * folders `domains.ts` names; the tables a domain declares in its `tables.ts` (the keys of its
 * exported `…Tables` interfaces) are its own, and a domain without one owns none. Every Kysely call that names a table (`selectFrom`,
 * `insertInto`, `updateTable`, `deleteFrom`, joins, `with`) and every table after FROM, JOIN,
 * UPDATE, INTO in a `sql` template of a domain's non-test file must name one of its own, unless
 * `SHARED` lists that file and table with the reason. A listed pair that no longer occurs fails
 * too, so the list only ever shrinks. Cross-domain needs go through the owning domain's
 * repository or service.
 */
import { join, relative } from "node:path";
import { domainOfFile, domainsOf } from "./domains.ts";

/**
 * Reads of another domain's table that are still allowed, by file, with why. Each is a place
 * to move behind the owning domain (issue 22 stays open for them).
 */
export const SHARED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "src/domains/factory/audit_repository.ts": {
    devices: "the factory's columns of the devices table",
  },
  "src/domains/factory/credentials_repository.ts": { devices: "the factory's columns of devices" },
  "src/domains/factory/devices_repository.ts": { devices: "the factory's columns of devices" },
  "src/domains/factory/download_requests_repository.ts": {
    devices: "the factory's columns of devices",
  },
  "src/domains/factory/registration_repository.ts": { devices: "the factory registers devices" },
  "src/domains/factory/stats_repository.ts": { devices: "the factory's columns of devices" },
};

const CALL =
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|with)\(\s*["'`](\w+)/g;
const SQL_TEMPLATE = /\bsql(?:<[^>]*>)?`([^`]*)`/g;
const SQL_TABLE = /\b(?:FROM|JOIN|UPDATE|INTO)\s+(\w+)/gi;

/** The tables one `tables.ts` declares: keys of its exported `…Tables` interfaces. */
export function declaredTables(text: string): string[] {
  const tables: string[] = [];
  for (const block of text.matchAll(/export interface \w+Tables\s*\{([\s\S]*?)\n\}/g)) {
    for (const key of block[1].matchAll(/^\s+(\w+)\s*:/gm)) tables.push(key[1]);
  }
  return tables;
}

/** The tables one source text names in queries. */
export function tablesNamed(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(CALL)) names.add(match[1]);
  for (const template of text.matchAll(SQL_TEMPLATE)) {
    for (const match of template[1].matchAll(SQL_TABLE)) names.add(match[1]);
  }
  return names;
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) yield path;
  }
}

/** Problems of the tree under `root`: foreign tables named, and stale `SHARED` entries. */
export async function checkTables(root: string): Promise<string[]> {
  const domains = await domainsOf(root);
  const owner = new Map<string, string>();
  for (const domain of domains) {
    try {
      const text = await Deno.readTextFile(join(root, "domains", domain, "tables.ts"));
      for (const table of declaredTables(text)) owner.set(table, domain);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  const problems: string[] = [];
  const used = new Set<string>();
  for await (const path of sourceFiles(root)) {
    const file = relative(Deno.cwd(), path);
    const domain = domainOfFile(root, path);
    if (domain === undefined) continue;
    for (const table of tablesNamed(await Deno.readTextFile(path))) {
      const own = owner.get(table);
      if (own === undefined || own === domain) continue;
      if (SHARED[file]?.[table]) {
        used.add(`${file}:${table}`);
        continue;
      }
      problems.push(`${file} names ${table}, a table of ${own}: go through ${own}'s repository`);
    }
  }
  for (const [file, tables] of Object.entries(SHARED)) {
    for (const table of Object.keys(tables)) {
      if (!used.has(`${file}:${table}`)) {
        problems.push(`${file} no longer names ${table}: remove it from SHARED`);
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const root = Deno.args[0] ?? "src";
  const problems = await checkTables(root);
  for (const problem of problems) console.error(problem);
  if (problems.length) Deno.exit(1);
  const shared = Object.values(SHARED).reduce((n, t) => n + Object.keys(t).length, 0);
  console.log(`Every domain's SQL names its own tables (${shared} shared reads listed)`);
}
