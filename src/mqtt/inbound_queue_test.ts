import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { InboundQueue } from "./inbound_queue.ts";

/** A handler whose calls finish only when the test says so. */
function gated() {
  const started: string[] = [];
  const release = new Map<string, () => void>();
  const handle = (item: string) => {
    started.push(item);
    return new Promise<void>((resolve) => release.set(item, resolve));
  };
  const finish = async (item: string) => {
    release.get(item)!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { started, handle, finish };
}

Deno.test("inbound queue: one thing's messages run one at a time, in order", async () => {
  const g = gated();
  const q = new InboundQueue(g.handle, () => {}, { concurrency: 4, maxQueued: 10, maxPerThing: 5 });
  for (const m of ["a1", "a2", "a3"]) q.push("a", m);
  q.push("b", "b1");
  assertEquals(g.started, ["a1", "b1"]);
  await g.finish("a1");
  assertEquals(g.started, ["a1", "b1", "a2"]);
  await g.finish("a2");
  await g.finish("a3");
  await g.finish("b1");
  assertEquals(g.started, ["a1", "b1", "a2", "a3"]);
  assertEquals([q.size, q.lanesInUse], [0, 0]);
});

Deno.test("inbound queue: concurrency, per-thing and total limits drop the excess", async () => {
  const g = gated();
  const q = new InboundQueue(g.handle, () => {}, { concurrency: 2, maxQueued: 5, maxPerThing: 2 });
  assert.ok(q.push("a", "a1")); // runs
  assert.ok(q.push("a", "a2"));
  assert.ok(q.push("a", "a3"));
  assert.ok(!q.push("a", "a4"), "a flooding thing is capped at maxPerThing waiting");
  assert.ok(q.push("b", "b1")); // runs
  assert.ok(q.push("c", "c1")); // waits: two running
  assert.ok(q.push("d", "d1"));
  assert.ok(q.push("e", "e1"));
  assert.ok(!q.push("f", "f1"), "the total backlog is capped at maxQueued");
  assertEquals(g.started, ["a1", "b1"]);
  assertEquals(q.size, 5);
  await g.finish("b1");
  assertEquals(g.started, ["a1", "b1", "c1"]);
  assert.ok(q.push("f", "f1"), "room again once a message started");
});

Deno.test("inbound queue: a failing handler is reported and the queue goes on", async () => {
  const failures: string[] = [];
  const handled: string[] = [];
  const q = new InboundQueue<string>(
    (item) => {
      if (item === "throw") throw new Error("sync");
      if (item === "reject") return Promise.reject(new Error("async"));
      handled.push(item);
      return Promise.resolve();
    },
    (error, item) => {
      failures.push(`${item}: ${(error as Error).message}`);
      if (item === "reject") throw new Error("the reporter fails too");
    },
  );
  q.push("a", "throw");
  q.push("a", "reject");
  q.push("a", "ok");
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assertEquals(failures, ["throw: sync", "reject: async"]);
  assertEquals(handled, ["ok"]);
  assertEquals(q.lanesInUse, 0);
});
