/**
 * `deno task check` step: fails when any two files under `src/` import each other, directly or
 * through others, by value or by type (issue: "no import cycle, value or type"). Reads the
 * static `import … from` / `export … from` specifiers of every `.ts` file, builds the graph of
 * relative imports and reports each strongly connected component of more than one file (or a
 * file importing itself) with one path through it.
 *
 * It also checks the graph of domains (issue 22; `domains.ts` says which folders are domains):
 * one domain importing another, through any of their files, is an edge, and that graph must
 * have no cycle either, which the file graph alone cannot see.
 */
import { dirname, join, relative, resolve } from "node:path";
import { domainOfFile, domainsOf, layoutProblems } from "./domains.ts";

const SPECIFIER = /(?:^|[;\s])(?:import|export)\s[^'";]*?\sfrom\s*["']([^"']+)["']/g;
const SIDE_EFFECT = /(?:^|[;\s])import\s*["']([^"']+)["']/g;

/** Relative import targets of one source text, resolved against its file. */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const pattern of [SPECIFIER, SIDE_EFFECT]) {
    for (const match of text.matchAll(pattern)) {
      const spec = match[1];
      if (spec.startsWith(".")) out.push(resolve(dirname(file), spec));
    }
  }
  return out;
}

/** Strongly connected components with a cycle (Tarjan), each as a list of files. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return found;
}

/**
 * The domain graph: an edge from domain A to domain B when a file of A imports a file of B.
 * `domainOf` names a file's domain, or undefined for files outside every domain.
 */
export function domainGraph(
  files: Map<string, string[]>,
  domainOf: (file: string) => string | undefined,
): Map<string, string[]> {
  const edges = new Map<string, Set<string>>();
  for (const [file, imports] of files) {
    const from = domainOf(file);
    if (from === undefined) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    for (const target of imports) {
      const to = domainOf(target);
      if (to !== undefined && to !== from) edges.get(from)!.add(to);
    }
  }
  return new Map([...edges].map(([domain, targets]) => [domain, [...targets].sort()]));
}

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* tsFiles(path);
    else if (entry.name.endsWith(".ts")) yield resolve(path);
  }
}

if (import.meta.main) {
  const root = Deno.args[0] ?? "src";
  const graph = new Map<string, string[]>();
  for await (const file of tsFiles(root)) {
    graph.set(file, importsOf(file, await Deno.readTextFile(file)));
  }
  const cycles = cyclesOf(graph);
  for (const cycle of cycles) {
    console.error(`Import cycle: ${cycle.map((f) => relative(Deno.cwd(), f)).join(" <-> ")}`);
  }
  // Tests may reach across domains.
  const domains = new Set(await domainsOf(root));
  const domainOf = (file: string) =>
    file.endsWith("_test.ts") ? undefined : domainOfFile(root, file);
  const domainCycles = cyclesOf(domainGraph(graph, domainOf));
  for (const cycle of domainCycles) console.error(`Domain cycle: ${cycle.join(" <-> ")}`);
  const layout = await layoutProblems(root);
  // Infrastructure serves the domains and never reaches into one.
  const infra = resolve(root, "infra");
  for (const [file, imports] of graph) {
    if (!file.startsWith(infra + "/") || file.endsWith("_test.ts")) continue;
    for (const target of imports) {
      const domain = domainOfFile(root, target);
      if (domain !== undefined) {
        layout.push(`${relative(Deno.cwd(), file)} imports the ${domain} domain`);
      }
    }
  }
  for (const problem of layout) console.error(`Layout: ${problem}`);
  if (cycles.length || domainCycles.length || layout.length) Deno.exit(1);
  console.log(
    `No import cycles in ${graph.size} files under ${root}/, none between its ${domains.size} domains`,
  );
}
