/**
 * `deno task check` step (issue 22): a domain's SQL names only its own tables. Domains are the
 * folders `domains.ts` names; the tables a domain declares in its `tables.ts` (the keys of its
 * exported `…Tables` interfaces) are its own, and a domain without one owns none. A table two
 * domains declare is split by columns: it is accepted only when both name a row interface of
 * that `tables.ts` and the two column sets are disjoint, and then it is each one's own (the
 * check sees tables, not columns; the declarations say whose each column is). Every Kysely call that names a table (`selectFrom`,
 * `insertInto`, `updateTable`, `deleteFrom`, joins, `with`) and every table after FROM, JOIN,
 * UPDATE, INTO in a `sql` template of a domain's non-test file must name one of its own, unless
 * `SHARED` lists that file and table with the reason. A listed pair that no longer occurs fails
 * too, so the list only ever shrinks. Cross-domain needs go through the owning domain's
 * repository or service. A file outside every domain (the composition root with the operator's
 * `src/admin.ts`, and `src/infra/`, which owns no rows) owns no table, so it names none.
 */
import { join, relative } from "node:path";
import { domainOfFile, domainsOf } from "./domains.ts";

/**
 * Reads of another domain's table that are still allowed, by file, with why: each is a place to
 * move behind the owning domain. Empty since issue 22's last step; a new entry needs a reason.
 */
export const SHARED: Readonly<Record<string, Readonly<Record<string, string>>>> = {};

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

/**
 * The tables one `tables.ts` declares with the columns of each: the keys of the row interface
 * a table's key names in the same file, or undefined when that interface is not there.
 */
export function declaredColumns(text: string): Map<string, string[] | undefined> {
  const out = new Map<string, string[] | undefined>();
  for (const block of text.matchAll(/export interface \w+Tables\s*\{([\s\S]*?)\n\}/g)) {
    for (const key of block[1].matchAll(/^\s+(\w+)\s*:\s*(\w+)/gm)) {
      const row = text.match(
        new RegExp(`interface ${key[2]}\\b(?:\\s+extends[^{]*)?\\s*\\{([\\s\\S]*?)\\n\\}`),
      );
      out.set(
        key[1],
        row ? [...row[1].matchAll(/^\s+(\w+)\??\s*:/gm)].map((m) => m[1]) : undefined,
      );
    }
  }
  return out;
}

/**
 * Problems of tables declared by more than one domain: each must declare its columns, and no
 * column may be declared twice.
 */
export function splitProblems(
  declarations: ReadonlyMap<string, ReadonlyArray<{ domain: string; columns?: string[] }>>,
): string[] {
  const problems: string[] = [];
  for (const [table, owners] of declarations) {
    if (owners.length < 2) continue;
    const whose = new Map<string, string>();
    for (const { domain, columns } of owners) {
      if (columns === undefined) {
        problems.push(
          `${table} is declared by ${owners.map((o) => o.domain).join(" and ")}, ` +
            `but ${domain}'s tables.ts does not list its columns`,
        );
        continue;
      }
      for (const column of columns) {
        const other = whose.get(column);
        if (other !== undefined) {
          problems.push(`${table}.${column} is declared by both ${other} and ${domain}`);
        } else whose.set(column, domain);
      }
    }
  }
  return problems;
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
  const declarations = new Map<string, Array<{ domain: string; columns?: string[] }>>();
  for (const domain of domains) {
    try {
      const text = await Deno.readTextFile(join(root, "domains", domain, "tables.ts"));
      for (const [table, columns] of declaredColumns(text)) {
        if (!declarations.has(table)) declarations.set(table, []);
        declarations.get(table)!.push({ domain, columns });
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  const owners = new Map([...declarations].map(([t, d]) => [t, d.map((o) => o.domain)]));
  const problems: string[] = splitProblems(declarations);
  const used = new Set<string>();
  for await (const path of sourceFiles(root)) {
    const file = relative(Deno.cwd(), path);
    // Outside the domains (the composition root, src/admin.ts, infrastructure) no table is own.
    const domain = domainOfFile(root, path);
    for (const table of tablesNamed(await Deno.readTextFile(path))) {
      const own = owners.get(table);
      if (own === undefined || (domain !== undefined && own.includes(domain))) continue;
      if (SHARED[file]?.[table]) {
        used.add(`${file}:${table}`);
        continue;
      }
      const of = own.join(" and ");
      problems.push(`${file} names ${table}, a table of ${of}: go through ${of}'s repository`);
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
