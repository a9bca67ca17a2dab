/**
 * Jobs on pg-boss in the service's own PostgreSQL (embedded PGlite or a server). Every queue a
 * domain declares is created (or updated) at start with its retry policy; sending inside a
 * caller's transaction makes the job part of it, so a rolled-back request never leaves a job
 * behind; workers validate each payload against the queue's schema before the handler sees it.
 */
import { fromKysely, type JobWithMetadata, PgBoss } from "pg-boss";
import postgres from "postgres";
import type { PGlite } from "@electric-sql/pglite";
import type { Kysely } from "kysely";
import { embeddedBoss, prepareQueues } from "./install.ts";
import type {
  JobHandler,
  Jobs,
  QueueDefinition,
  QueueSettings,
  SendOptions,
  WorkOptions,
} from "./types.ts";
import { type Metrics, NO_METRICS } from "../metrics/metrics.ts";

export interface JobsOptions {
  /** Every queue of the service (`src/queues.ts`); each is created or updated at start. */
  queues: QueueSettings[];
  /** The server URL when `connection` is PostgreSQL (pg-boss keeps its own small pool). */
  databaseUrl?: string;
  /** Idle poll interval in seconds (a NOTIFY wakes workers sooner). Default 2. */
  pollingIntervalSeconds?: number;
  /** Where pg-boss and the workers report background errors. */
  onError: (message: string, fields: Record<string, unknown>) => void;
  /** Job durations, failures and queue depths (`/metrics`). */
  metrics?: Metrics;
}

/** pg-boss behind the Jobs interface; create with `createJobs`. */
export class PgBossJobs implements Jobs {
  #stopped = false;

  constructor(
    private readonly boss: PgBoss,
    private readonly options: Required<
      Pick<JobsOptions, "pollingIntervalSeconds" | "onError" | "metrics">
    >,
  ) {}

  async send<T>(queue: QueueDefinition<T>, data: T, options: SendOptions = {}) {
    const payload = queue.schema.parse(data);
    // With a transaction the INSERT runs on its connection: committed with it or not at all.
    // The queue cache is warm (see createJobs), so send() issues no statement outside `trx`.
    return await this.boss.send(queue.name, payload as object, {
      ...(options.trx ? { db: fromKysely(options.trx) } : {}),
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      ...(options.startAfterSeconds ? { startAfter: options.startAfterSeconds } : {}),
      ...(options.priority ? { priority: options.priority } : {}),
    });
  }

  async work<T>(queue: QueueDefinition<T>, handler: JobHandler<T>, options: WorkOptions = {}) {
    const { pollingIntervalSeconds } = this.options;
    // One pg-boss worker per unit of concurrency, each knowing its own id: after a job it wakes
    // itself, so a backlog is worked through back to back. Without that, pg-boss waits out the
    // polling interval after every job (NOTIFY only wakes workers for jobs sent while they
    // wait): a burst of 12 renders on two workers took 9-11 s instead of ~1 s (issue 12).
    for (let i = 0; i < (options.concurrency ?? 1); i++) {
      // Set once work() returns; a job taken before that simply waits for the next poll.
      const worker: { id?: string } = {};
      worker.id = await this.boss.work(
        queue.name,
        {
          pollingIntervalSeconds,
          // NOTIFY wakes workers for new jobs only; retries become due silently, so the backstop
          // poll must stay short or a retry waits 30 s (pg-boss's default) past its backoff.
          notifyPollingIntervalSeconds: pollingIntervalSeconds,
          localConcurrency: 1,
          batchSize: 1,
          // The job's own retry limit: jobs enqueued before a settings change keep theirs.
          includeMetadata: true,
        },
        async ([job]: JobWithMetadata<unknown>[]) => {
          const started = performance.now();
          let outcome: "completed" | "failed" | "invalid" = "failed";
          try {
            outcome = await this.run(queue, handler, job);
          } finally {
            this.options.metrics.jobRun(queue.name, outcome, (performance.now() - started) / 1e3);
            // Fetch again at once: an empty fetch falls back to waiting for NOTIFY or the poll.
            if (worker.id) this.boss.notifyWorker(worker.id);
          }
        },
      );
    }
  }

  /** Validates a job's payload and runs the handler with its attempt. */
  private async run<T>(
    queue: QueueDefinition<T>,
    handler: JobHandler<T>,
    job: JobWithMetadata<unknown>,
  ): Promise<"completed" | "invalid"> {
    const parsed = queue.schema.safeParse(job.data);
    if (!parsed.success) {
      // No retry can make a malformed payload valid: recorded, and the job completes.
      this.options.onError("job payload is invalid", {
        queue: queue.name,
        jobId: job.id,
        issue: parsed.error.issues[0]?.message,
      });
      return "invalid";
    }
    await handler(parsed.data, {
      number: job.retryCount + 1,
      final: job.retryCount >= job.retryLimit,
    });
    return "completed";
  }

  async schedule<T>(queue: QueueDefinition<T>, cron: string, data: T) {
    await this.boss.schedule(queue.name, cron, queue.schema.parse(data) as object);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    // Graceful: running handlers finish (up to 20 s) before the database closes under them.
    await this.boss.stop({ graceful: true, timeout: 20_000, close: true });
  }
}

/** The database the jobs live in (a `Connection` of src/infra/db/connect.ts). */
export interface JobsConnection<D> {
  db: Kysely<D>;
  kind: "postgres" | "pglite";
  pglite?: PGlite;
}

/** Starts pg-boss (installing or migrating its schema), creates the queues, warms the cache. */
export async function createJobs<D>(
  connection: JobsConnection<D>,
  options: JobsOptions,
): Promise<PgBossJobs> {
  let boss: PgBoss;
  if (connection.kind === "pglite") {
    if (!connection.pglite) throw new Error("PGlite connection without its engine");
    boss = embeddedBoss(connection.db, connection.pglite);
  } else {
    if (!options.databaseUrl) throw new Error("Jobs on PostgreSQL need the database URL");
    boss = new PgBoss({ connectionString: options.databaseUrl, max: 4, useListenNotify: true });
  }
  boss.on("error", (error) => options.onError("jobs error", { error: String(error) }));
  // Processes starting together (docs/deploy.md) would race on pg-boss's schema and on creating
  // the same queue (its partition table: "duplicate key ... pg_type_typname_nsp_index"), so
  // start-up takes a database-wide lock; PGlite serves one process anyway.
  await startupLocked(connection.kind === "pglite" ? undefined : options.databaseUrl, async () => {
    await boss.start();
    try {
      await prepareQueues(boss, options.queues);
    } catch (error) {
      await boss.stop({ graceful: false, close: true }).catch(() => {});
      throw error;
    }
  });
  const metrics = options.metrics ?? NO_METRICS;
  // Read at scrape time: the counts pg-boss's monitor keeps on its queue table (one cheap query).
  const names = options.queues.map((q) => q.name);
  metrics.queueDepths(async () =>
    (await boss.getQueues(names)).map((q) => ({
      name: q.name,
      ready: Math.max(0, (q.queuedCount ?? 0) - (q.deferredCount ?? 0)),
      deferred: q.deferredCount ?? 0,
      active: q.activeCount ?? 0,
    }))
  );
  return new PgBossJobs(boss, {
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    onError: options.onError,
    metrics,
  });
}

/** A key of `pg_advisory_lock` no other lock of the service uses (migrations take 7270). */
const JOBS_STARTUP_LOCK = 7271;

/**
 * Runs `fn` holding a session advisory lock on PostgreSQL (one process at a time), on a
 * connection of its own that is closed after (the service's pool stays out of it).
 */
async function startupLocked(databaseUrl: string | undefined, fn: () => Promise<void>) {
  if (!databaseUrl) return await fn();
  const session = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await session`SELECT pg_advisory_lock(${JOBS_STARTUP_LOCK})`;
    await fn();
  } finally {
    // Ending the session releases its lock, also when `fn` failed.
    await session.end({ timeout: 5 });
  }
}
