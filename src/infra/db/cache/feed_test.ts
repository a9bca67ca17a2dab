import { assert, assertEquals } from "../../../../tests/helpers/assert.ts";
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from "kysely";
import { ChangeFeed, type ChangeSource } from "./feed.ts";
import { mayAnnounce } from "./write_tracking.ts";

/** A source the test drives: it records the syncs the feed sends. */
function fakeSource() {
  const syncs: string[] = [];
  const source: ChangeSource = {
    start: (feed) => Promise.resolve(feed.started()),
    sync: (payload) => Promise.resolve(void syncs.push(payload)),
    close: () => Promise.resolve(),
  };
  return { source, syncs };
}

function counter() {
  let loads = 0;
  return {
    load: () => Promise.resolve(++loads),
    get loads() {
      return loads;
    },
  };
}

Deno.test("a feed that does not listen never serves from its caches", async () => {
  const feed = ChangeFeed.disabled();
  const cache = feed.cache<number>();
  const c = counter();
  await cache.get("k", () => ["user:t"], c.load);
  await cache.get("k", () => ["user:t"], c.load);
  assertEquals([c.loads, cache.size, feed.hits], [2, 0, 0]);
});

Deno.test("entries are dropped by their tags, and all of them when listening stops", async () => {
  const feed = new ChangeFeed();
  await feed.start(fakeSource().source);
  const cache = feed.cache<number>();
  const c = counter();
  assertEquals(await cache.get("a", () => ["user:1", "session:a"], c.load), 1);
  assertEquals(await cache.get("a", () => ["user:1"], c.load), 1);
  assertEquals(await cache.get("b", () => ["user:2"], c.load), 2);
  assertEquals(feed.hits, 1);
  feed.notified("user:1");
  assertEquals(await cache.get("a", () => ["user:1"], c.load), 3);
  assertEquals(await cache.get("b", () => ["user:2"], c.load), 2);
  // A value that must not be remembered (null tags) is loaded every time.
  await cache.get("none", () => null, c.load);
  await cache.get("none", () => null, c.load);
  assertEquals(c.loads, 5);
  feed.stopped();
  assertEquals(cache.size, 0);
  await cache.get("a", () => ["user:1"], c.load);
  assertEquals([c.loads, cache.size], [6, 0]);
  feed.started();
  await cache.get("a", () => ["user:1"], c.load);
  await cache.get("a", () => ["user:1"], c.load);
  assertEquals([c.loads, cache.size], [7, 1]);
});

Deno.test("a value read while one of its tags was announced is not stored", async () => {
  const feed = new ChangeFeed();
  await feed.start(fakeSource().source);
  const cache = feed.cache<string>();
  const value = await cache.get("a", () => ["session:a", "user:1"], () => {
    feed.notified("user:1"); // a change committed while the row was read
    return Promise.resolve("old");
  });
  assertEquals([value, cache.size], ["old", 0]);
  // Another row's change during the read leaves it stale in nothing: stored (issue 40).
  const other = await cache.get("b", () => ["user:2"], () => {
    feed.notified("user:9");
    return Promise.resolve("fresh");
  });
  assertEquals([other, cache.size], ["fresh", 1]);
  // The listener dropping and coming back during a read: not stored.
  await cache.get("c", () => ["user:3"], () => {
    feed.stopped();
    feed.started();
    return Promise.resolve("unknown");
  });
  assertEquals(cache.size, 0);
});

Deno.test("past its bound of remembered tags, reads begun before store nothing", async () => {
  const feed = new ChangeFeed();
  await feed.start(fakeSource().source);
  const cache = feed.cache<string>();
  await cache.get("a", () => ["user:1"], () => {
    for (let i = 0; i <= 10_000; i++) feed.notified(`device:${i}`);
    return Promise.resolve("maybe stale");
  });
  assertEquals(cache.size, 0);
  await cache.get("a", () => ["user:1"], () => Promise.resolve("read after"));
  assertEquals(cache.size, 1);
});

Deno.test("after its own write a process reads through until its sync comes back", async () => {
  const feed = new ChangeFeed();
  const { source, syncs } = fakeSource();
  await feed.start(source);
  const cache = feed.cache<number>();
  const c = counter();
  await cache.get("a", () => ["user:1"], c.load);
  feed.wrote();
  assert.equal(feed.fresh, false);
  await cache.get("a", () => ["user:1"], c.load);
  assertEquals(c.loads, 2);
  await Promise.resolve();
  assertEquals(syncs.length, 1);
  // Another process's sync with the same count is not this one's.
  feed.notified(syncs[0].replace(/sync:[^:]+:/, "sync:other:"));
  assert.equal(feed.fresh, false);
  // The write's own notifications come before its sync, in commit order.
  feed.notified("user:1");
  feed.notified(syncs[0]);
  assert.equal(feed.fresh, true);
  await cache.get("a", () => ["user:1"], c.load);
  await cache.get("a", () => ["user:1"], c.load);
  assertEquals(c.loads, 3);
});

Deno.test("what is read before the own write's sync is stored, served only after it", async () => {
  const feed = new ChangeFeed();
  const { source, syncs } = fakeSource();
  await feed.start(source);
  const cache = feed.cache<string>();
  // A read begun before this process's write, answered after it: the old row.
  let answer!: (value: string) => void;
  const before = cache.get("a", () => ["user:1"], () => new Promise((r) => answer = r));
  feed.wrote();
  answer("old");
  assertEquals(await before, "old");
  // Another row read meanwhile is stored too; nothing is served before the sync.
  await cache.get("b", () => ["user:2"], () => Promise.resolve("b1"));
  assertEquals(cache.size, 2);
  assertEquals(await cache.get("b", () => ["user:2"], () => Promise.resolve("b2")), "b2");
  await Promise.resolve();
  // The write's notification drops the old value before its sync lets the caches serve.
  feed.notified("user:1");
  feed.notified(syncs[0]);
  assertEquals(await cache.get("a", () => ["user:1"], () => Promise.resolve("new")), "new");
  assertEquals(await cache.get("a", () => ["user:1"], () => Promise.resolve("newer")), "new");
  assertEquals(await cache.get("b", () => ["user:2"], () => Promise.resolve("b3")), "b2");
});

Deno.test("only statements that can make the triggers announce count as writes", () => {
  // deno-lint-ignore no-explicit-any -- a schema-less builder, only compiled
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  const cases: Array<[boolean, { toOperationNode(): unknown }]> = [
    [false, db.selectFrom("sessions").selectAll()],
    [false, db.updateTable("devices").set({ last_seen_at: new Date(), status: "online" })],
    [false, db.updateTable("devices as d").set({ nickname: "x" })],
    [true, db.updateTable("devices").set({ owner_id: null, bound_at: null })],
    [true, db.updateTable("devices").set({ latest_push_id: "p" })],
    [true, db.insertInto("pushes").values({ id: "p" })], // a device may now have a push waiting
    [false, db.insertInto("sessions").values({ id: "s" })],
    [true, db.insertInto("subscriptions").values({ user_id: "u" })],
    [true, db.insertInto("oauth_accounts").values({ id: "o" })],
    [true, db.insertInto("users").values({ id: "u" }).onConflict((oc) => oc.doNothing())],
    [
      false,
      db.insertInto("device_commands").values({ id: "c" }).onConflict((oc) => oc.doNothing()),
    ],
    [true, db.updateTable("sessions").set({ last_used_at: new Date() })],
    [true, db.updateTable("pushes").set({ status: "CONFIRMED" })],
    [false, db.updateTable("login_failures").set({ count: 1 })],
    [true, db.deleteFrom("files")],
    [true, db.deleteFrom("sessions")],
    [true, sql`UPDATE users SET disabled_at = now()`],
    [
      true,
      db.with("x", (q) => q.deleteFrom("sessions").returning("id")).selectFrom("x").selectAll(),
    ],
  ];
  for (const [expected, query] of cases) {
    const node = query.toOperationNode();
    assertEquals(mayAnnounce(node), expected, JSON.stringify(node).slice(0, 120));
  }
});

Deno.test("settled waits for this process's sync, and not past an outage", async () => {
  const feed = new ChangeFeed();
  const { source, syncs } = fakeSource();
  await feed.start(source);
  await feed.settled(); // nothing written: at once
  feed.wrote();
  let done = false;
  const waiting = feed.settled(5_000).then(() => done = true);
  await Promise.resolve();
  assert.equal(done, false);
  feed.notified(syncs[0]);
  await waiting;
  feed.wrote();
  const outage = feed.settled(5_000);
  feed.stopped();
  await outage;
});

Deno.test("misses of one key at once share one load, unless a change came in between", async () => {
  const feed = new ChangeFeed();
  await feed.start(fakeSource().source);
  const cache = feed.cache<number>();
  let loads = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const load = async () => {
    const n = ++loads;
    await gate;
    return n;
  };
  const first = [cache.get("a", () => null, load), cache.get("a", () => null, load)];
  // Another key is its own load.
  const other = cache.get("b", () => null, load);
  feed.notified("user:1");
  // Asked after a change: it must not be answered by the read begun before it.
  const after = cache.get("a", () => null, load);
  release();
  assertEquals(await Promise.all([...first, other, after]), [1, 1, 2, 3]);
  // Done loads are not shared: the value was not to be remembered, so it is read again.
  assertEquals(await cache.get("a", () => null, () => Promise.resolve(++loads)), 4);
});

Deno.test("a failed load fails the misses that shared it, and the next one loads again", async () => {
  const feed = new ChangeFeed();
  await feed.start(fakeSource().source);
  const cache = feed.cache<number>();
  let loads = 0;
  const failing = () => {
    loads++;
    return Promise.reject(new Error("database unavailable"));
  };
  const results = await Promise.allSettled([
    cache.get("a", () => ["user:1"], failing),
    cache.get("a", () => ["user:1"], failing),
  ]);
  assertEquals(results.map((r) => r.status), ["rejected", "rejected"]);
  assertEquals(loads, 1);
  assertEquals(await cache.get("a", () => ["user:1"], () => Promise.resolve(7)), 7);
});
