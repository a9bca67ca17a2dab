/**
 * Issue 9: the factory's services are peers over one access module. No import cycle (value or
 * type) may run through a file of this folder, also not by way of a file elsewhere in `src/`.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const factory = dirname(fileURLToPath(import.meta.url));
const src = normalize(join(factory, ".."));
const IMPORT = /(?:import|export)\s[^;]*?from\s*"(\.[^"]+\.ts)"|import\(\s*"(\.[^"]+\.ts)"\s*\)/g;

function importsOf(file: string): string[] {
  const text = Deno.readTextFileSync(file);
  return [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(file), m[1] ?? m[2])))
    .filter((f) => f.startsWith(src) && !f.endsWith("_test.ts"));
}

Deno.test("factory: no import cycle runs through src/domains/factory", () => {
  const graph = new Map<string, string[]>();
  const pending = [...Deno.readDirSync(factory)]
    .filter((e) => e.name.endsWith(".ts") && !e.name.endsWith("_test.ts"))
    .map((e) => join(factory, e.name));
  while (pending.length) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    graph.set(file, importsOf(file));
    pending.push(...graph.get(file)!);
  }
  // A cycle through a factory file: a path from one of its imports back to itself.
  const reaches = (from: string, to: string) => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length) {
      const f = stack.pop()!;
      if (f === to) return true;
      if (seen.has(f)) continue;
      seen.add(f);
      stack.push(...(graph.get(f) ?? []));
    }
    return false;
  };
  const cyclic = [...graph.keys()]
    .filter((f) => f.startsWith(factory) && graph.get(f)!.some((d) => reaches(d, f)))
    .map((f) => f.slice(src.length + 1));
  assert.deepEqual(cyclic, []);
});
