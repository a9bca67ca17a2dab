/** The import-cycle check of `deno task check` (issue: no import cycle between src/ files). */
import { assertEquals } from "./helpers/assert.ts";
import { cyclesOf, domainGraph, importsOf } from "../tools/check_cycles.ts";

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

Deno.test("check_cycles: a cycle between domains is found though no two files form one", () => {
  // devices/inbox -> pushes/service -> devices/service: acyclic as files, cyclic as domains.
  const files = new Map([
    ["/src/devices/inbox.ts", ["/src/pushes/service.ts"]],
    ["/src/pushes/service.ts", ["/src/devices/service.ts", "/src/lib/ids.ts"]],
    ["/src/devices/service.ts", ["/src/lib/ids.ts"]],
    ["/src/devices/service_test.ts", ["/src/pushes/service.ts"]],
    ["/src/lib/ids.ts", []],
  ]);
  assertEquals(cyclesOf(files), []);
  const domainOf = (f: string) => {
    if (f.endsWith("_test.ts")) return undefined;
    const top = f.split("/")[2];
    return top === "lib" ? undefined : top;
  };
  assertEquals(cyclesOf(domainGraph(files, domainOf)), [["devices", "pushes"]]);
  files.delete("/src/devices/inbox.ts");
  assertEquals(cyclesOf(domainGraph(files, domainOf)), []);
});
