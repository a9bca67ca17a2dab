/** The import-cycle check of `deno task check` (issue: no import cycle between src/ files). */
import { assertEquals } from "./helpers/assert.ts";
import { cyclesOf, importsOf } from "../tools/check_cycles.ts";

Deno.test("check_cycles: reads value, type, re-export and side-effect imports", () => {
  const text = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b.ts";',
    'export { c } from "./c.ts";',
    'import "./d.ts";',
    'import { z } from "zod";',
    "import {\n  e,\n  f,\n} from './e.ts';",
  ].join("\n");
  assertEquals(importsOf("/src/x/y.ts", text).sort(), [
    "/src/b.ts",
    "/src/x/a.ts",
    "/src/x/c.ts",
    "/src/x/d.ts",
    "/src/x/e.ts",
  ]);
});

Deno.test("check_cycles: finds a cycle through several files, and none in a tree", () => {
  const cyclic = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  assertEquals(cyclesOf(cyclic), [["a", "b", "c"]]);
  const tree = new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]]);
  assertEquals(cyclesOf(tree), []);
});
