/**
 * The service runs with one set of V8 flags wherever it is started: `deno task start` (deno.json)
 * is the source, and the compose file, docs/deploy.md's compose example, `deno task bench` and the
 * benchmarks' service processes (bench/lib.ts) carry the same, so a figure measured by a bench is
 * the service an operator runs (issue 40: the playlist bench once measured V8's defaults).
 */
import { assert, assertEquals } from "./helpers/assert.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));
const FLAGS = /--v8-flags=[^\s",]+(?:,[^\s",]+)*/g;

Deno.test("V8 flags: every start of the service carries deno task start's", async () => {
  const tasks = JSON.parse(await read("deno.json")).tasks as Record<string, string>;
  const start = tasks.start.match(FLAGS);
  assert.ok(start?.length === 1, "deno task start sets --v8-flags once");
  const expected = start![0];
  assertEquals(tasks.bench.match(FLAGS), [expected], "deno task bench");
  for (const path of ["compose.yaml", "docs/deploy.md"]) {
    const found = (await read(path)).match(FLAGS) ?? [];
    assert.ok(found.length >= 2, `${path} starts the api and the worker roles with V8 flags`);
    for (const flags of found) assertEquals(flags, expected, path);
  }
  const lib = await read("bench/lib.ts");
  const constant = lib.match(/SERVICE_V8_FLAGS = "([^"]+)"/)?.[1];
  assertEquals(constant, expected, "bench/lib.ts SERVICE_V8_FLAGS");
  for await (const entry of Deno.readDir(new URL("bench/", ROOT))) {
    if (!entry.name.endsWith(".ts")) continue;
    for (const flags of (await read(`bench/${entry.name}`)).match(FLAGS) ?? []) {
      assertEquals(flags, expected, `bench/${entry.name}'s run line`);
    }
  }
});
