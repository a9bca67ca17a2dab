import { assertEquals } from "../../../tests/helpers/assert.ts";
import { Batcher } from "./batcher.ts";

Deno.test("batcher: same-tick keys share one query; keys asked meanwhile wait for the next", async () => {
  const queries: string[][] = [];
  let release = () => {};
  const batcher = new Batcher<string, string>(async (keys) => {
    queries.push(keys);
    if (queries.length === 1) await new Promise<void>((resolve) => release = resolve);
    return new Map(keys.filter((k) => k !== "missing").map((k) => [k, k.toUpperCase()]));
  }, { maxBatch: 3, concurrency: 1 });
  const first = ["a", "b", "a"].map((k) => batcher.load(k));
  await new Promise((resolve) => setTimeout(resolve, 0));
  const later = ["c", "d", "e", "f", "missing"].map((k) => batcher.load(k));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(queries, [["a", "b"]], "one query in flight; the rest wait for it");
  release();
  assertEquals(await Promise.all(first), ["A", "B", "A"]);
  assertEquals(await Promise.all(later), ["C", "D", "E", "F", undefined]);
  assertEquals(queries, [["a", "b"], ["c", "d", "e"], ["f", "missing"]]);
});

Deno.test("batcher: a failed query fails its callers only", async () => {
  let calls = 0;
  const batcher = new Batcher<string, number>((keys) => {
    calls++;
    return calls === 1
      ? Promise.reject(new Error("down"))
      : Promise.resolve(new Map(keys.map((k) => [k, 1])));
  });
  const failed = await batcher.load("a").catch((error) => (error as Error).message);
  assertEquals(failed, "down");
  assertEquals(await batcher.load("a"), 1);
});

Deno.test("batcher: with gather turn, keys asked by separate callbacks of one turn share a query", async () => {
  const queries: string[][] = [];
  const batcher = new Batcher<string, string>(
    (keys) => {
      queries.push(keys);
      return Promise.resolve(new Map(keys.map((k) => [k, k.toUpperCase()])));
    },
    { maxBatch: 10, concurrency: 2, gather: "turn" },
  );
  // Two timers due at once run in one turn, each its own callback (as two sockets' reads are).
  const asked = await Promise.all(
    ["a", "b"].map((k) =>
      new Promise<Promise<string | undefined>>((resolve) =>
        setTimeout(() => resolve(batcher.load(k)), 0)
      )
    ),
  );
  assertEquals(await Promise.all(asked), ["A", "B"]);
  assertEquals(queries, [["a", "b"]]);
});
