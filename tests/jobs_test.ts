/**
 * Jobs on pg-boss against the real database of the run: the embedded PGlite, or a fresh
 * database on the server in DATABASE_URL. A test queue with a short retry policy; waits are
 * bounded but never asserted on.
 */
import { sql } from "kysely";
import { connect, type Connection } from "../src/infra/db/connect.ts";
import { createJobs, type PgBossJobs } from "../src/infra/jobs/boss.ts";
import { z } from "zod";
import { type Attempt, defineQueue } from "../src/infra/jobs/types.ts";
import type { DB } from "../src/schema.ts";
import { assert, assertEquals } from "./helpers/assert.ts";
import { createDatabase, externalDatabaseUrl } from "./helpers/server.ts";

const testQueue = defineQueue({
  name: "test-work",
  schema: z.object({ pushId: z.string() }),
  retry: { limit: 2, delaySeconds: 1, maxDelaySeconds: 10 },
});

interface Harness {
  connection: Connection<DB>;
  jobs: PgBossJobs;
  /** Errors reported by the jobs (onError). */
  errors: Array<{ msg: string; fields: Record<string, unknown> }>;
  /** Every attempt the handler saw, by push id. */
  attempts: Map<string, Attempt[]>;
  /** Resolves when push `id` has been handled successfully. */
  done(id: string): Promise<void>;
  jobState(id: string): Promise<string[]>;
  close(): Promise<void>;
}

/** One database and one Jobs for the file (creating PGlite costs seconds); the last test closes. */
let shared: Promise<Harness> | undefined;
const options = { sanitizeOps: false, sanitizeResources: false };

function jobsTest(name: string, fn: (h: Harness) => Promise<void>) {
  Deno.test({
    name: `jobs: ${name}`,
    ...options,
    fn: async () => await fn(await (shared ??= harness())),
  });
}

/** Pushes whose id starts with `fail-N-` throw on their first N attempts; `fail-all-` always. */
async function harness(): Promise<Harness> {
  const database = externalDatabaseUrl ? await createDatabase(externalDatabaseUrl) : undefined;
  const connection = await connect<DB>({ url: database?.url, dataDir: "memory://" });
  const errors: Harness["errors"] = [];
  const jobs = await createJobs(connection, {
    queues: [testQueue],
    databaseUrl: database?.url,
    pollingIntervalSeconds: 0.5,
    onError: (msg, fields) => errors.push({ msg, fields }),
  });
  const attempts = new Map<string, Attempt[]>();
  const waiters = new Map<string, () => void>();
  const finished = new Set<string>();
  const finish = (pushId: string) => {
    finished.add(pushId);
    waiters.get(pushId)?.();
  };
  await jobs.work(testQueue, ({ pushId }, attempt) => {
    attempts.set(pushId, [...(attempts.get(pushId) ?? []), attempt]);
    const failures = pushId.startsWith("fail-all-")
      ? Infinity
      : Number(pushId.match(/^fail-(\d+)-/)?.[1] ?? 0);
    if (attempt.number <= failures) {
      if (attempt.final) finish(pushId);
      return Promise.reject(new Error(`Render of ${pushId} failed on purpose`));
    }
    finish(pushId);
    return Promise.resolve();
  });
  return {
    connection,
    jobs,
    errors,
    attempts,
    done(id) {
      if (finished.has(id)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${id} not handled in 30 s`)), 30_000);
        waiters.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async jobState(id) {
      const rows = await sql<{ state: string }>`
        SELECT state FROM pgboss.job WHERE name = 'test-work' AND data->>'pushId' = ${id}
      `.execute(connection.db);
      return rows.rows.map((r) => r.state);
    },
    async close() {
      await jobs.stop();
      await connection.close();
      await database?.drop();
    },
  };
}

jobsTest(
  "an enqueue in a rolled-back transaction never exists; a committed one runs",
  async (h) => {
    await h.connection.db.transaction().execute(async (trx) => {
      await h.jobs.send(testQueue, { pushId: "committed" }, { trx });
      await sql`SELECT 1`.execute(trx);
    });
    await h.done("committed");
    const rollback = new Error("roll back");
    const outcome = await h.connection.db.transaction().execute(async (trx) => {
      await h.jobs.send(testQueue, { pushId: "never" }, { trx });
      throw rollback;
    }).catch((e) => e);
    assertEquals(outcome, rollback);
    await h.jobs.send(testQueue, { pushId: "after" });
    await h.done("after");
    assertEquals(await h.jobState("never"), []);
    assertEquals(h.attempts.has("never"), false);
    assertEquals(h.attempts.get("committed")?.length, 1);
  },
);

jobsTest("a backlog drains without a poll interval between jobs", async (h) => {
  // One worker (concurrency 1) polling every 0.5 s: without waking it after each job, 20 queued
  // jobs would take about 10 s; they take a fraction of that.
  const ids = Array.from({ length: 20 }, (_, i) => `backlog-${i}`);
  const started = performance.now();
  await h.connection.db.transaction().execute(async (trx) => {
    for (const pushId of ids) await h.jobs.send(testQueue, { pushId }, { trx });
  });
  await Promise.all(ids.map((id) => h.done(id)));
  const seconds = (performance.now() - started) / 1000;
  assert.ok(seconds < 5, `20 jobs took ${seconds.toFixed(1)} s`);
});

jobsTest("a failing handler is retried with backoff until it succeeds", async (h) => {
  await h.jobs.send(testQueue, { pushId: "fail-2-a" });
  await h.done("fail-2-a");
  assertEquals(h.attempts.get("fail-2-a"), [
    { number: 1, final: false },
    { number: 2, final: false },
    { number: 3, final: true },
  ]);
  // pg-boss marks the job completed right after the handler returns.
  for (let i = 0; i < 50 && (await h.jobState("fail-2-a"))[0] !== "completed"; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assertEquals(await h.jobState("fail-2-a"), ["completed"]);
});

jobsTest("after the final attempt fails the job is failed for good", async (h) => {
  await h.jobs.send(testQueue, { pushId: "fail-all-b" });
  await h.done("fail-all-b");
  for (let i = 0; i < 50 && (await h.jobState("fail-all-b"))[0] !== "failed"; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assertEquals(await h.jobState("fail-all-b"), ["failed"]);
  assertEquals(h.attempts.get("fail-all-b")?.map((a) => a.final), [false, false, true]);
});

jobsTest("an enqueue without a transaction survives another request's rollback", async (h) => {
  // On PGlite (one session) this is the trap STACK.md names: without the Kysely lock the send
  // would run inside the other transaction and vanish with it.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const opened = new Promise<void>((r) => (started = r));
  const other = h.connection.db.transaction().execute(async (trx) => {
    await sql`SELECT 1`.execute(trx);
    started();
    await held;
    throw new Error("roll back");
  }).catch(() => "rolled back");
  await opened;
  const sent = h.jobs.send(testQueue, { pushId: "outside" });
  release();
  assertEquals(await other, "rolled back");
  await sent;
  await h.done("outside");
  assert.ok((await h.jobState("outside")).length === 1);
});

jobsTest("a payload that does not match the queue's schema is refused at send", async (h) => {
  const error = await h.jobs.send(testQueue, { pushId: 42 } as unknown as { pushId: string })
    .catch((e) => e);
  assert.ok(error instanceof z.ZodError);
});

jobsTest("a worker never hands a malformed stored payload to its handler", async (h) => {
  // Another writer (an older version, a hand-made row) put a payload of another shape there.
  const loose = defineQueue({ name: testQueue.name, schema: z.unknown() });
  await h.jobs.send(loose, { pushId: 7 });
  await h.jobs.send(testQueue, { pushId: "after-malformed" });
  await h.done("after-malformed");
  for (let i = 0; i < 50 && !h.errors.length; i++) await new Promise((r) => setTimeout(r, 100));
  assertEquals(h.errors.map((e) => e.msg), ["job payload is invalid"]);
  assertEquals([...h.attempts.keys()].some((k) => typeof k !== "string"), false);
});

Deno.test({
  name: "jobs: stop drains the workers and closes cleanly",
  ...options,
  fn: async () => {
    if (shared) await (await shared).close();
  },
});
