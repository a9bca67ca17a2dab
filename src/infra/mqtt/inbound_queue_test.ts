import { assertEquals } from "../../../tests/helpers/assert.ts";
import { InboundQueue, ITEM_OVERHEAD_BYTES, STALL_MS } from "./inbound_queue.ts";

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

/** One lane and room for a burst, on a clock the test moves (`clock.now`, ms). */
function timedQueue(g: ReturnType<typeof gated>, clock: { now: number }) {
  return new InboundQueue(g.handle, () => {}, {
    concurrency: 1,
    maxQueued: 100,
    maxQueuedBytes: 1 << 20,
    maxPerThing: 100,
  }, () => clock.now);
}

Deno.test("inbound queue: one thing's messages run one at a time, in order", async () => {
  const g = gated();
  const q = new InboundQueue(g.handle, () => {}, {
    concurrency: 4,
    maxQueued: 10,
    maxQueuedBytes: 1 << 20,
    maxPerThing: 5,
  });
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
  const q = new InboundQueue(g.handle, () => {}, {
    concurrency: 2,
    maxQueued: 5,
    maxQueuedBytes: 1 << 20,
    maxPerThing: 2,
  });
  assertEquals(q.push("a", "a1"), "queued"); // runs
  assertEquals(q.push("a", "a2"), "queued");
  assertEquals(q.push("a", "a3"), "queued");
  assertEquals(
    q.push("a", "a4"),
    "thing_full",
    "a flooding thing is capped at maxPerThing waiting",
  );
  assertEquals(q.push("b", "b1"), "queued"); // runs
  assertEquals(q.push("c", "c1"), "queued"); // waits: two running
  assertEquals(q.push("d", "d1"), "queued");
  assertEquals(q.push("e", "e1"), "queued");
  assertEquals(q.push("f", "f1"), "full", "the total backlog is capped at maxQueued");
  assertEquals(g.started, ["a1", "b1"]);
  assertEquals(q.size, 5);
  await g.finish("b1");
  assertEquals(g.started, ["a1", "b1", "c1"]);
  assertEquals(q.push("f", "f1"), "queued", "room again once a message started");
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

Deno.test("inbound queue: the backlog is also capped in bytes", () => {
  const g = gated();
  const q = new InboundQueue(g.handle, () => {}, {
    concurrency: 1,
    maxQueued: 1_000,
    maxQueuedBytes: 3 * (ITEM_OVERHEAD_BYTES + 1_000) + ITEM_OVERHEAD_BYTES,
    maxPerThing: 16,
  });
  assertEquals(q.push("a", "a1", 1_000), "queued"); // runs: waits no longer
  for (const key of ["b", "c", "d"]) assertEquals(q.push(key, key, 1_000), "queued");
  assertEquals(q.push("e", "e", 1_000), "full");
  assertEquals(q.push("e", "e", 0), "queued", "a smaller one still fits");
  assertEquals(q.bytes, 3 * (ITEM_OVERHEAD_BYTES + 1_000) + ITEM_OVERHEAD_BYTES);
});

Deno.test("inbound queue: a fleet-size burst of small messages is all taken and all handled", async () => {
  const handled = new Set<string>();
  const q = new InboundQueue<string>(async (item) => {
    await Promise.resolve();
    handled.add(item);
  }, () => {});
  const results = new Map<string, number>();
  for (let i = 0; i < 20_000; i++) {
    const result = q.push(`thing-${i}`, `thing-${i}`, 20);
    results.set(result, (results.get(result) ?? 0) + 1);
  }
  assertEquals([...results], [["queued", 20_000]]);
  while (handled.size < 20_000) await new Promise((resolve) => setTimeout(resolve, 1));
  assertEquals([q.size, q.bytes, q.lanesInUse], [0, 0, 0]);
});

Deno.test("inbound queue: the expected wait is the backlog over the rate while messages wait", async () => {
  const clock = { now: 0 };
  const g = gated();
  const q = timedQueue(g, clock);
  clock.now = 10_000; // idle time before the burst does not count
  q.push("b", "b0"); // runs alone: nothing waits, so its time does not count either
  clock.now += 5_000;
  await g.finish("b0");
  for (let i = 0; i < 22; i++) q.push("a", `a${i}`);
  assertEquals(q.expectedWaitSeconds(), 0, "nothing measured yet");
  // The first answer starts the clock; then 10 handlers in 1 s of work: 10 per second, 10
  // waiting -> 1 s.
  for (let i = 0; i < 11; i++) {
    clock.now += 100;
    await g.finish(`a${i}`);
  }
  assertEquals(q.size, 10);
  assertEquals(q.expectedWaitSeconds(), 1);
});

Deno.test("inbound queue: half a second that finished nothing is not a stall; STALL_MS of it is", () => {
  const clock = { now: 0 };
  const g = gated();
  const q = timedQueue(g, clock);
  for (let i = 0; i < 5; i++) q.push("a", `a${i}`);
  clock.now += 600; // the burst's start: the first handler still waits
  assertEquals(q.expectedWaitSeconds(), 0, "nothing measured yet, not Infinity");
  clock.now += STALL_MS;
  assertEquals(q.expectedWaitSeconds(), Infinity, "stuck: no end in sight");
});
